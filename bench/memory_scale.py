"""Memory that does not grow with the run: peak RSS of the `reasoneval run` CLI at S and 10xS samples.

Starts the fake OpenAI-compatible server (answers after ``--delay`` s) and runs, each with a fresh HOME, an
empty REASONEVAL_CACHE_DIR and a new store (cold), ``reasoneval run korbench --limit L --samples S
--concurrency C`` and the same with ``--samples 10*S`` (``--big``), as whole CLI processes (the table printed after
the run included). Per pair: each run's peak RSS (the child's ``ru_maxrss``), the ratio big/small, the request
rate of each run (completions / wall time), the time of ``reasoneval report RUN`` on the big run's store and
the store's bytes per completion. Beside them, in the same minutes: a bare aiohttp client sending the same
number of KOR-Bench chat bodies as the big run to the same server (the ceiling), and the machine probe.
Pairs are repeated ``--repeat`` times (small and big interleaved) and the medians printed.

    python bench/memory_scale.py [--limit 250] [--samples 10] [--big 100] [--concurrency 256] [--delay 0.05]
        [--repeat 3] [--src DIR]

``--src DIR`` runs the CLI from another source tree (``git archive BASE src | tar -x -C /tmp/base``; then
``--src /tmp/base/src``): before/after pairs interleaved in the same minutes.
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

from cli_throughput import bare  # bench/cli_throughput.py
from machine import speed_probe  # bench/machine.py

from reasoneval.testing.procs import FakeServerProc


def _env(root: Path, src: str | None) -> dict[str, str]:
    home, cache = root / "home", root / "cache"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "REASONEVAL_CACHE_DIR": str(cache)}
    env.pop("REASONEVAL_STORE", None)
    if src:
        env["PYTHONPATH"] = src
    return env


def _peak_child_kb(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``cmd`` in a child that reports its own peak RSS (KiB): a wrapper process of this script, so the
    figure is that one process's, not the largest child this bench ever waited for."""
    p = subprocess.run([sys.executable, __file__, "--measure", *cmd], env=env, capture_output=True, text=True,
                       cwd=cwd)
    tail = p.stdout.strip().splitlines()
    kb = int(tail[-1].split()[1]) if tail and tail[-1].startswith("PEAK_KB ") else -1
    return p, kb


def measure_child(cmd: list[str]) -> None:
    p = subprocess.run(cmd)
    print(f"PEAK_KB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", flush=True)
    sys.exit(p.returncode)


def cli_run(url: str, limit: int, samples: int, conc: int, root: Path, src: str | None) -> dict[str, float]:
    env = _env(root, src)
    db = root / "s.db"
    base = [sys.executable, "-m", "reasoneval"]
    cmd = [*base, "run", "korbench", "--limit", str(limit), "--samples", str(samples), "--concurrency", str(conc),
           "--model", f"openai-compat/fake@{url}", "--no-progress", "--store", str(db)]
    t0 = time.perf_counter()
    p, kb = _peak_child_kb(cmd, env, root)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"run failed: {p.stderr[-2000:]}")
    line = next(x for x in p.stderr.splitlines() if " generated, " in x)
    run_id = line.split(":")[0].split()[-1]
    n = int(line.split(" generated,")[0].rsplit(" ", 1)[1])
    t0 = time.perf_counter()
    r = subprocess.run([*base, "report", run_id, "--store", str(db)], env=env, capture_output=True, text=True,
                       cwd=root)
    report_s = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"report failed: {r.stderr[-2000:]}")
    return {"peak_mb": kb / 1024, "n": n, "wall": wall, "rate": n / wall, "report_s": report_s,
            "bytes_per": db.stat().st_size / max(n, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=250)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--big", type=int, default=100, help="--samples of the big run")
    ap.add_argument("--concurrency", type=int, default=256)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--src", default=None, help="run the CLI from this source tree (PYTHONPATH)")
    ap.add_argument("--measure", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.measure:
        measure_child(a.measure)
        return
    srv = FakeServerProc("--delay", str(a.delay))
    try:
        print(f"korbench --limit {a.limit} --samples {a.samples} vs {a.big}, concurrency {a.concurrency}, server "
              f"delay {a.delay}s, {os.cpu_count()} CPUs, source {a.src or 'this checkout'}; median of {a.repeat}")
        print(speed_probe())
        rows: list[tuple[dict[str, float], dict[str, float], float]] = []
        for i in range(a.repeat):
            with tempfile.TemporaryDirectory() as td:
                small = cli_run(srv.url, a.limit, a.samples, a.concurrency, Path(td) / "small", a.src)
                big = cli_run(srv.url, a.limit, a.big, a.concurrency, Path(td) / "big", a.src)
            ceiling = bare(srv.url, a.concurrency, int(big["n"]))
            rows.append((small, big, ceiling))
            print(f"pair {i + 1}: peak {small['peak_mb']:.0f} MB -> {big['peak_mb']:.0f} MB "
                  f"({big['peak_mb'] / small['peak_mb']:.2f}x); req/s {small['rate']:.0f} -> {big['rate']:.0f} "
                  f"({100 * big['rate'] / small['rate'] - 100:+.1f}%); bare client {ceiling:.0f} req/s; report of "
                  f"the big run {big['report_s']:.2f} s; store {big['bytes_per']:.0f} bytes/completion", flush=True)

        def med(f: list[float]) -> float:
            return statistics.median(f)

        print(f"median: peak {med([s['peak_mb'] for s, _, _ in rows]):.0f} MB -> "
              f"{med([b['peak_mb'] for _, b, _ in rows]):.0f} MB, ratio "
              f"{med([b['peak_mb'] / s['peak_mb'] for s, b, _ in rows]):.2f}x (range "
              f"{min(b['peak_mb'] / s['peak_mb'] for s, b, _ in rows):.2f}-"
              f"{max(b['peak_mb'] / s['peak_mb'] for s, b, _ in rows):.2f}); request rate "
              f"{med([s['rate'] for s, _, _ in rows]):.0f} -> {med([b['rate'] for _, b, _ in rows]):.0f}/s "
              f"(bare client {med([c for _, _, c in rows]):.0f}/s); report {med([b['report_s'] for _, b, _ in rows]):.2f}"
              f" s; store {med([b['bytes_per'] for _, b, _ in rows]):.0f} bytes/completion")
        print(speed_probe())
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
