"""Throughput the way users see it: the `reasoneval run` CLI end to end, with cold caches.

Starts the fake OpenAI-compatible server (answers after ``--delay`` s, so the ideal rate at concurrency C
is C / delay) and runs ``reasoneval run korbench --limit L --concurrency C`` as a subprocess, each time
with a fresh HOME, an empty REASONEVAL_CACHE_DIR and a new store (cold: no LaTeX cache, no response
cache). Start-up and the final report cost the same for any size, so the rate is taken from the
difference of a small and a large run:

    rate = (items_large - items_small) / (time_large - time_small)

Then the same pair again with the LaTeX cache of the first runs kept (warm), for comparison.

    python bench/cli_throughput.py [--concurrency 64 256] [--small 64] [--large 250] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasoneval.testing.procs import FakeServerProc


def cli_run(url: str, limit: int, conc: int, root: Path, cache: Path) -> tuple[float, int]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "REASONEVAL_CACHE_DIR": str(cache)}
    env.pop("REASONEVAL_STORE", None)
    cmd = [sys.executable, "-m", "reasoneval.cli", "run", "korbench", "--limit", str(limit), "--concurrency",
           str(conc), "--model", f"openai-compat/fake@{url}", "--no-progress", "--store", str(root / "s.db")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"run failed: {p.stderr[-2000:]}")
    line = next(x for x in p.stderr.splitlines() if " generated, " in x)
    generated = int(line.split(" generated,")[0].rsplit(" ", 1)[1])
    return dt, generated


def pair(url: str, conc: int, small: int, large: int, cache: Path | None) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as td:
        root = Path(td)
        out = []
        for lim in (small, large):
            c = cache if cache is not None else root / f"cache{lim}"
            sub = root / f"r{lim}"
            t, n = cli_run(url, lim, conc, sub, c)
            out.append((t, n))
        (t1, n1), (t2, n2) = out
        return (n2 - n1) / (t2 - t1), t1, t2


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--small", type=int, default=64, help="--limit of the small run (per subset: x5 items)")
    ap.add_argument("--large", type=int, default=250)
    ap.add_argument("--delay", type=float, default=0.2)
    a = ap.parse_args()
    srv = FakeServerProc("--delay", str(a.delay))
    warm_cache = Path(tempfile.mkdtemp(prefix="reasoneval-warm-"))
    try:
        print(f"CLI end to end, korbench --limit {a.small} vs {a.large} (x5 subsets), server delay {a.delay}s, "
              f"{os.cpu_count()} CPUs; runner and server on this machine")
        print(f"{'concurrency':>11} {'caches':>6} {'req/s':>8} {'ideal':>7} {'% ideal':>8} {'t_small':>8} "
              f"{'t_large':>8}")
        for conc in a.concurrency:
            ideal = conc / a.delay
            cold, t1, t2 = pair(srv.url, conc, a.small, a.large, None)
            print(f"{conc:>11} {'cold':>6} {cold:>8.1f} {ideal:>7.0f} {100 * cold / ideal:>7.1f}% {t1:>8.2f} "
                  f"{t2:>8.2f}")
            pair(srv.url, conc, a.small, a.large, warm_cache)  # fills the LaTeX cache
            warm, t1, t2 = pair(srv.url, conc, a.small, a.large, warm_cache)
            print(f"{conc:>11} {'warm':>6} {warm:>8.1f} {ideal:>7.0f} {100 * warm / ideal:>7.1f}% {t1:>8.2f} "
                  f"{t2:>8.2f}")
    finally:
        srv.stop()
        shutil.rmtree(warm_cache, ignore_errors=True)


if __name__ == "__main__":
    main()
