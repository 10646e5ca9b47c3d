"""Throughput over 1, 2 and 4 local replicas of fixed capacity, through the whole runner.

Each replica is a fake OpenAI-compatible server (reasoneval.testing.fake_openai) that serves at most
``--capacity`` requests at once, each taking ``--delay`` seconds: ``capacity / delay`` requests/s per
replica, whatever the client sends. The client keeps the same load in flight at every level (enough
to fill 4 replicas), so the rate it gets measures how well ``openai-compat/<m>@URL1,URL2,...`` spreads
work over the replicas. Prints requests/s, the speed-up over 1 replica and the fraction of ideal.

    python bench/replicas.py [--capacity 8] [--delay 0.2] [--seconds 6] [--ray-workers 2]

``--ray-workers N`` sends the same load through ``--executor ray`` (N Ray workers on a local cluster,
each an HTTP client of all the replicas), to show what the driver/worker hop costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from reasoneval.core.benchmark import Benchmark
from reasoneval.core.registry import register
from reasoneval.core.values import GenParams, Item, Outcome, Prompt, Verdict
from reasoneval.models.openai_compat import from_spec
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.scoring.extract import double_brackets
from reasoneval.store.sqlite import RunStore

N_ITEMS = 20000


@register("bench-replicas")
class Synthetic(Benchmark):
    name = "bench-replicas"
    description = "synthetic items for bench/replicas.py"

    def subsets(self) -> list[str]:
        return ["all"]

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return [Item(self.name, "all", str(i), {"q": f"Question {i}: repeat word{i}"}, gold=f"word{i}")
                for i in range(N_ITEMS)]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(item.data["q"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        got = double_brackets(text)
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "brackets")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_replica(capacity: int, delay: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "reasoneval.testing.fake_openai", "--port", str(port),
                             "--delay", str(delay), "--capacity", str(capacity)])
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}"


async def one(urls: list[str], conc: int, n_units: int, db: Path,
              ray_workers: int = 0) -> tuple[float, int, list[dict]]:
    bench = Synthetic()
    spec = RunSpec(bench.name, "all", "zero-shot", "openai-compat/fake@" + ",".join(u + "/v1" for u in urls),
                   GenParams(max_tokens=64), limit=n_units)
    backend: Any
    if ray_workers:
        from reasoneval.runner.ray_exec import start_workers

        backend = start_workers(spec.model, ray_workers, local_cpus=1, concurrency=conc // ray_workers)
    else:
        backend = from_spec(spec.model, conc)
    store = RunStore(db)
    t0 = time.perf_counter()
    try:
        res = await Runner(bench, spec, store, backend, concurrency=conc, progress=False).run()
        dt = time.perf_counter() - t0
        stats = backend.replica_stats()
    finally:
        await backend.aclose()
    assert res.errors == 0, f"{res.errors} errors"
    return res.generated / dt, res.generated, stats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--capacity", type=int, default=8, help="requests one replica serves at once")
    ap.add_argument("--delay", type=float, default=0.2, help="seconds per request")
    ap.add_argument("--seconds", type=float, default=6.0, help="target duration per level")
    ap.add_argument("--levels", default="1,2,4")
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    ap.add_argument("--ray-workers", type=int, default=0, help="go through N Ray workers (local cluster)")
    a = ap.parse_args()
    if a.ray_workers:
        import logging

        import ray

        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    levels = [int(x) for x in a.levels.split(",")]
    per_replica = a.capacity / a.delay
    conc = 2 * a.capacity * max(levels)  # the same offered load at every level
    via = f", through {a.ray_workers} Ray workers" if a.ray_workers else ""
    print(f"replicas of capacity {a.capacity} x {a.delay}s = {per_replica:g} req/s each; "
          f"client concurrency {conc}{via} (runner + servers on this machine)")
    print(f"{'replicas':>8} {'requests':>9} {'req/s':>9} {'ideal':>9} {'% ideal':>8} {'speed-up':>9}  per replica req/s")
    figures = []
    base = None
    with tempfile.TemporaryDirectory() as td:
        for n in levels:
            procs = [start_replica(a.capacity, a.delay) for _ in range(n)]
            try:
                ideal = n * per_replica
                units = min(N_ITEMS, max(20, int(ideal * a.seconds)))
                rate, done, stats = asyncio.run(one([u for _, u in procs], conc, units, Path(td) / f"r{n}.db",
                                                    a.ray_workers))
                seen = []
                for _, u in procs:
                    with urllib.request.urlopen(u + "/stats") as r:
                        seen.append(json.loads(r.read()))
                assert all(s.get("max_concurrent", 0) <= a.capacity for s in seen)
            finally:
                for p, _ in procs:
                    p.kill()
                    p.wait()
            base = base or rate
            per = " ".join(f"{s['throughput_rps']}" for s in stats)
            print(f"{n:>8} {done:>9} {rate:>9.1f} {ideal:>9.1f} {100 * rate / ideal:>7.1f}% {rate / base:>8.2f}x  {per}")
            figures.append({"replicas": n, "requests": done, "rps": round(rate, 1), "ideal_rps": ideal,
                            "speedup": round(rate / base, 2)})
    if a.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
