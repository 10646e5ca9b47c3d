"""Whole-runner throughput (prompting, HTTP, storing, scoring) against a local fake server.

The fake OpenAI-compatible server answers every request after 200 ms, so the ideal rate at
concurrency C is C / 0.2 s. Prints achieved requests/s and the fraction of ideal at C = 1, 64, 256.

    python bench/throughput.py [--benchmark korbench] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.models.openai_compat import from_spec
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def one(bench_name: str, url: str, conc: int, n_units: int, db: Path) -> tuple[float, int]:
    bench = registry.get(bench_name)
    n_items = sum(len(bench.load(s, bench.default_mode)) for s in bench.subsets())
    samples = max(1, -(-n_units // n_items))
    limit = None if samples > 1 else max(1, n_units // len(bench.subsets()))
    spec = RunSpec(bench_name, None, bench.default_mode, f"openai-compat/fake@{url}",
                   GenParams(max_tokens=64), samples=samples, limit=limit, seed=conc)
    backend = from_spec(spec.model, conc)
    store = RunStore(db)
    t0 = time.perf_counter()
    try:
        res = await Runner(bench, spec, store, backend, concurrency=conc, progress=False).run()
    finally:
        await backend.aclose()
    dt = time.perf_counter() - t0
    assert res.errors == 0, f"{res.errors} errors"
    return res.generated / dt, res.generated


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchmark", default="korbench")
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--seconds", type=float, default=6.0, help="target duration per level")
    a = ap.parse_args()
    port = free_port()
    srv = subprocess.Popen([sys.executable, "-m", "reasoneval.testing.fake_openai", "--port", str(port),
                            "--delay", str(a.delay)])
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/v1"
        print(f"benchmark={a.benchmark} server delay={a.delay}s (runner + server on this machine)")
        print(f"{'concurrency':>11} {'requests':>9} {'req/s':>9} {'ideal':>9} {'% ideal':>8}")
        with tempfile.TemporaryDirectory() as td:
            for conc in (1, 64, 256):
                ideal = conc / a.delay
                n = max(10, int(ideal * a.seconds))
                rate, done = asyncio.run(one(a.benchmark, url, conc, n, Path(td) / f"c{conc}.db"))
                print(f"{conc:>11} {done:>9} {rate:>9.1f} {ideal:>9.1f} {100 * rate / ideal:>7.1f}%")
    finally:
        srv.kill()


if __name__ == "__main__":
    main()
