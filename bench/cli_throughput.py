"""Throughput the way users see it: the `reasoneval run` CLI end to end, with cold caches.

Starts the fake OpenAI-compatible server (answers after ``--delay`` s, so the ideal rate at concurrency C
is C / delay) and runs ``reasoneval run korbench --limit L --concurrency C`` as a subprocess, each time
with a fresh HOME, an empty REASONEVAL_CACHE_DIR and a new store (cold: no LaTeX cache, no response
cache). Start-up and the final report cost the same for any size, so the rate is taken from the
difference of a small and a large run:

    rate = (requests_large - requests_small) / (time_large - time_small)

The large run asks every item ``--samples`` times (each sample its own request), sized so that it lasts at
least ``--seconds`` at the ideal rate: with only 1,250 KOR-Bench items a pair at concurrency 256 differs by
under a second and the figure is noise. Each pair is repeated ``--repeat`` times and the median printed.
Then the same pairs with the LaTeX cache of the first runs kept (warm), for comparison, and the ceiling: a bare
aiohttp client sending the same number of KOR-Bench chat bodies to the same server (no store, no scoring).

    python bench/cli_throughput.py [--concurrency 64 256] [--small 64] [--seconds 10] [--repeat 3] [--delay 0.2]
        [--caches cold warm] [--src DIR]

``--src DIR`` runs the CLI from another source tree (``git archive BASE src | tar -x -C /tmp/base``, then
``--src /tmp/base/src``), so before/after figures can be taken in the same minutes against the same server.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import speed_probe  # bench/machine.py

from reasoneval.testing.procs import FakeServerProc

SRC: str | None = None  # --src: the source tree the CLI runs from (PYTHONPATH), None: this checkout


def cli_run(url: str, limit: int, conc: int, root: Path, cache: Path, samples: int = 1) -> tuple[float, int]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "REASONEVAL_CACHE_DIR": str(cache)}
    env.pop("REASONEVAL_STORE", None)
    if SRC:
        env["PYTHONPATH"] = SRC
    script = Path(sys.executable).with_name("reasoneval")  # the console script, as a user runs it
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "reasoneval"]
    cmd += ["run", "korbench", "--limit", str(limit), "--concurrency",
           str(conc), "--samples", str(samples), "--model", f"openai-compat/fake@{url}", "--no-progress",
           "--store", str(root / "s.db")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"run failed: {p.stderr[-2000:]}")
    line = next(x for x in p.stderr.splitlines() if " generated, " in x)
    generated = int(line.split(" generated,")[0].rsplit(" ", 1)[1])
    return dt, generated


def bare_child(url: str, conc: int, n: int) -> None:
    """A bare aiohttp client (the ceiling): the KOR-Bench zero-shot prompts as chat bodies, ``conc`` at a time, no
    store, no scoring; prints requests/s over the ``n`` requests (session set up before the clock starts)."""
    import asyncio
    import json

    import aiohttp

    from reasoneval.core import registry

    bench = registry.get("korbench")
    bodies = [{"model": "fake", "max_tokens": 1024,
               "messages": [{"role": m.role, "content": m.content} for m in bench.prompt(it, "zero-shot").messages]}
              for sub in bench.subsets() for it in bench.load(sub, "zero-shot")]

    async def go() -> float:
        sem = asyncio.Semaphore(conc)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            async def one(i: int) -> None:
                async with sem, session.post(url + "/chat/completions", json=bodies[i % len(bodies)]) as r:
                    await r.json()

            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return n / (time.perf_counter() - t0)

    print(json.dumps({"rate": asyncio.run(go())}))


def bare(url: str, conc: int, n: int) -> float:
    import json

    out = subprocess.run([sys.executable, __file__, "--bare-child", url, str(conc), str(n)], check=True,
                         capture_output=True, text=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["rate"])


def pair(url: str, conc: int, small: int, samples: int, cache: Path | None) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as td:
        root = Path(td)
        out = []
        for lim, s in ((small, 1), (250, samples)):
            c = cache if cache is not None else root / f"cache{lim}-{s}"
            sub = root / f"r{lim}-{s}"
            t, n = cli_run(url, lim, conc, sub, c, s)
            out.append((t, n))
        (t1, n1), (t2, n2) = out
        return (n2 - n1) / (t2 - t1), t1, t2


def median_pair(url: str, conc: int, small: int, samples: int, cache: Path | None,
                repeat: int) -> tuple[float, float, float, list[float]]:
    got = sorted((pair(url, conc, small, samples, cache) for _ in range(repeat)), key=lambda r: r[0])
    rate, t1, t2 = got[len(got) // 2]
    return rate, t1, t2, [r[0] for r in got]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--small", type=int, default=64, help="--limit of the small run (per subset: x5 items)")
    ap.add_argument("--seconds", type=float, default=10.0, help="the large run lasts at least this at the ideal rate")
    ap.add_argument("--repeat", type=int, default=3, help="pairs per figure (the median is printed)")
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--caches", nargs="+", default=["cold", "warm"], choices=["cold", "warm"])
    ap.add_argument("--src", default=None, help="run the CLI from this source tree (PYTHONPATH)")
    ap.add_argument("--bare-child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    global SRC
    SRC = a.src
    if a.bare_child:
        bare_child(a.bare_child[0], int(a.bare_child[1]), int(a.bare_child[2]))
        return
    srv = FakeServerProc("--delay", str(a.delay))
    warm_cache = Path(tempfile.mkdtemp(prefix="reasoneval-warm-"))
    try:
        print(f"CLI end to end, korbench --limit {a.small} (x5 subsets) vs --limit 250 --samples S, server delay "
              f"{a.delay}s, {os.cpu_count()} CPUs; runner and server on this machine; median of {a.repeat}; source "
              f"{a.src or 'this checkout'}")
        print(speed_probe())
        print(f"{'concurrency':>11} {'caches':>6} {'S':>3} {'req/s':>8} {'ideal':>7} {'% ideal':>8} {'t_small':>8} "
              f"{'t_large':>8}  all % ideal")
        for conc in a.concurrency:
            ideal = conc / a.delay
            samples = max(1, math.ceil(a.seconds * ideal / 1250))
            for caches in a.caches:
                cache = None if caches == "cold" else warm_cache
                if caches == "warm":
                    pair(srv.url, conc, a.small, 1, warm_cache)  # fills the LaTeX cache
                rate, t1, t2, rates = median_pair(srv.url, conc, a.small, samples, cache, a.repeat)
                spread = " ".join(f"{100 * r / ideal:.1f}" for r in rates)
                print(f"{conc:>11} {caches:>6} {samples:>3} {rate:>8.1f} {ideal:>7.0f} {100 * rate / ideal:>7.1f}% "
                      f"{t1:>8.2f} {t2:>8.2f}  {spread}", flush=True)
            ceiling = sorted(bare(srv.url, conc, samples * 1250) for _ in range(a.repeat))[a.repeat // 2]
            print(f"{conc:>11} {'bare':>6} {samples:>3} {ceiling:>8.1f} {ideal:>7.0f} {100 * ceiling / ideal:>7.1f}%"
                  f"  (bare aiohttp client, same server and bodies, no store/scoring: the ceiling)", flush=True)
    finally:
        srv.stop()
        shutil.rmtree(warm_cache, ignore_errors=True)


if __name__ == "__main__":
    main()
