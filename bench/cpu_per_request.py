"""CPU per request of the client, the way users run it: the `reasoneval run` CLI against a 200 ms server, beside a
bare aiohttp client sending the same KOR-Bench chat bodies, in the same minutes.

The CPU of a process is its user + system time (``getrusage`` of the finished child), so the figure does not
depend on how the two cores were shared with the server. Start-up, data loading and the final report cost the
same for any size, so the CLI's figure is the difference of a large and a small run:

    cpu per request = (cpu_large - cpu_small) / (requests_large - requests_small)

(`run korbench --samples S` against `--samples 1`, fresh HOME, empty REASONEVAL_CACHE_DIR, new store), and the
bare client's the same way (N_large against N_small requests). Pairs are interleaved (CLI, bare, CLI, bare...)
and the median and spread printed, with the wall time of each large run.

    python bench/cpu_per_request.py [--concurrency 64 256] [--samples 12] [--repeat 5] [--delay 0.2]
        [--src DIR] [--profile out.prof] [--bare-uvloop]

``--src DIR``: the CLI from another source tree (before/after in the same minutes). ``--profile F``: one more
large CLI run under cProfile, written to F, with the functions that took the most CPU (own time) printed by
module. ``--bare-uvloop``: a second bare client on uvloop's loop beside the asyncio one, and the CLI's ratio to
each (the CLI runs on uvloop where it is installed: ``--cli-event-loop asyncio`` runs it with
``run --event-loop asyncio`` for a comparison).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import speed_probe  # bench/machine.py

from reasoneval.testing.procs import FakeServerProc

ITEMS = 1250  # KOR-Bench zero-shot items


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


#: extra options of every CLI run (``--cli-event-loop asyncio``: ``run --event-loop asyncio``)
CLI_EXTRA: list[str] = []


def cli(url: str, conc: int, samples: int, src: str | None, profile: str | None = None) -> tuple[float, float, int]:
    """(cpu s, wall s, requests generated) of one CLI run in a fresh directory, HOME and cache."""
    with tempfile.TemporaryDirectory() as td:
        root = Path(td)
        (root / "home").mkdir()
        env = {**os.environ, "HOME": str(root / "home"), "REASONEVAL_CACHE_DIR": str(root / "cache")}
        env.pop("REASONEVAL_STORE", None)
        if src:
            env["PYTHONPATH"] = src
        cmd = [sys.executable, *(["-m", "cProfile", "-o", profile] if profile else []), "-m", "reasoneval", "run",
               "korbench", "--concurrency", str(conc), "--samples", str(samples), "--model",
               f"openai-compat/fake@{url}", "--no-progress", "--store", str(root / "s.db"), *CLI_EXTRA]
        c0, t0 = _child_cpu(), time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
        wall, cpu = time.perf_counter() - t0, _child_cpu() - c0
        if p.returncode != 0:
            raise SystemExit(f"run failed: {p.stderr[-2000:]}")
        line = next(x for x in p.stderr.splitlines() if " generated, " in x)
        return cpu, wall, int(line.split(" generated,")[0].rsplit(" ", 1)[1])


def bare_child(url: str, conc: int, n: int, loop: str = "asyncio") -> None:
    """The bare client: KOR-Bench zero-shot prompts as chat bodies, ``conc`` at a time, each answer read as JSON;
    on asyncio's loop or uvloop's (``loop``)."""
    import asyncio

    import aiohttp

    from reasoneval.core import registry

    bench = registry.get("korbench")
    bodies = [{"model": "fake", "max_tokens": 1024,
               "messages": [{"role": m.role, "content": m.content} for m in bench.prompt(it, "zero-shot").messages]}
              for sub in bench.subsets() for it in bench.load(sub, "zero-shot")]

    async def go() -> None:
        sem = asyncio.Semaphore(conc)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            async def one(i: int) -> None:
                async with sem, session.post(url + "/chat/completions", json=bodies[i % len(bodies)]) as r:
                    await r.json()

            await asyncio.gather(*(one(i) for i in range(n)))

    if loop == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(go())
    else:
        asyncio.run(go())


def bare(url: str, conc: int, n: int, loop: str = "asyncio") -> tuple[float, float]:
    c0, t0 = _child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, __file__, "--bare-child", url, str(conc), str(n), loop], check=True)
    return _child_cpu() - c0, time.perf_counter() - t0


def _stats(xs: list[float]) -> str:
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--samples", type=int, default=12, help="samples per item of the large run")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved pairs per figure")
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--src", default=None)
    ap.add_argument("--profile", default=None, help="write a cProfile of one large CLI run here")
    ap.add_argument("--bare-uvloop", action="store_true", help="also a bare client on uvloop, and the ratio to it")
    ap.add_argument("--cli-event-loop", default=None, help="run the CLI with --event-loop X (trees that have it)")
    ap.add_argument("--bare-child", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.cli_event_loop:
        CLI_EXTRA.extend(["--event-loop", a.cli_event_loop])
    if a.bare_child:
        bare_child(a.bare_child[0], int(a.bare_child[1]), int(a.bare_child[2]), *a.bare_child[3:4])
        return
    srv = FakeServerProc("--delay", str(a.delay))
    try:
        print(f"CPU per request: CLI `run korbench --samples {a.samples}` minus `--samples 1` vs a bare aiohttp "
              f"client, server delay {a.delay}s, {os.cpu_count()} CPUs, source {a.src or 'this checkout'}")
        print(speed_probe())
        print(f"CLI event loop: {a.cli_event_loop or 'the default (uvloop if installed)'}")
        uv_head = f" {'bare uvloop ms/req':>22} {'ratio':>6}" if a.bare_uvloop else ""
        print(f"{'conc':>5} {'CLI ms/req':>22} {'bare ms/req':>22} {'ratio':>6} {'CLI wall s':>18} {'bare wall s':>18}"
              + uv_head)
        for conc in a.concurrency:
            cli_ms, bare_ms, cli_wall, bare_wall, ratios = [], [], [], [], []
            uv_ms: list[float] = []
            uv_ratios: list[float] = []
            for _ in range(a.repeat):
                c1, _, n1 = cli(srv.url, conc, 1, a.src)
                c2, w2, n2 = cli(srv.url, conc, a.samples, a.src)
                b1, _ = bare(srv.url, conc, ITEMS)
                b2, bw2 = bare(srv.url, conc, ITEMS * a.samples)
                cm = 1000 * (c2 - c1) / (n2 - n1)
                bm = 1000 * (b2 - b1) / (ITEMS * (a.samples - 1))
                cli_ms.append(cm)
                bare_ms.append(bm)
                ratios.append(cm / bm)
                cli_wall.append(w2)
                bare_wall.append(bw2)
                if a.bare_uvloop:
                    u1, _ = bare(srv.url, conc, ITEMS, "uvloop")
                    u2, _ = bare(srv.url, conc, ITEMS * a.samples, "uvloop")
                    uv_ms.append(1000 * (u2 - u1) / (ITEMS * (a.samples - 1)))
                    uv_ratios.append(cm / uv_ms[-1])
            uv_cols = f" {_stats(uv_ms):>22} {statistics.median(uv_ratios):>5.2f}x" if a.bare_uvloop else ""
            print(f"{conc:>5} {_stats(cli_ms):>22} {_stats(bare_ms):>22} {statistics.median(ratios):>5.2f}x "
                  f"{_stats(cli_wall):>18} {_stats(bare_wall):>18}{uv_cols}", flush=True)
        if a.profile:
            cli(srv.url, a.concurrency[-1], a.samples, a.src, profile=a.profile)
            import pstats

            st = pstats.Stats(a.profile)
            by_mod: dict[str, float] = {}
            for (file, _, _), (_, _, tt, _, _) in st.stats.items():  # type: ignore[attr-defined]
                key = file.split("site-packages/")[-1].split("/src/")[-1]
                by_mod[key] = by_mod.get(key, 0.0) + tt
            total = sum(by_mod.values())
            print(f"profile {a.profile}: own time by file (total {total:.1f} s)")
            for k, v in sorted(by_mod.items(), key=lambda kv: -kv[1])[:25]:
                print(f"  {100 * v / total:5.1f}%  {v:7.2f} s  {k}")
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
