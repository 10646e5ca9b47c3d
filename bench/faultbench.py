"""What the fault benches share: the `reasoneval run` CLI with default settings against the fake server, a
fault-free run and a faulted run side by side (the same minutes, the same machine), and the store audited.

A run is ``reasoneval run korbench --limit L`` (5 subsets: 5 x L items) as a subprocess with a fresh HOME, LaTeX
cache and store, nothing but ``--model`` and ``--store`` given (default concurrency, streaming, timeouts,
hedging). The fake server streams (``--stream``) and answers after ``--delay`` seconds; the faulted run's
server adds ``--fault-rate R --faults KINDS`` (each chosen prompt's first attempt fails; the retry succeeds):
``--faults hang --hang-s 120`` is the audit's "20% 120 s hangs" (a 504 after 120 s).

``--client-src DIR`` runs the CLI with ``PYTHONPATH=DIR`` (another checkout's code, for a before/after figure)
while the fake server stays this checkout's (it knows every fault kind); ``--cap S`` stops a run after S s and
counts what it had stored by then.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from reasoneval.models.http_backend import HTTPOptions
from reasoneval.testing.procs import FakeServerProc


@dataclass
class Outcome:
    seconds: float
    finished: bool  # False: stopped at --cap
    items: int  # items expected
    stored: int  # distinct items with an answer row (an answer or an error)
    duplicated: int  # answer rows beyond one per item
    errors: int  # items stored as errors
    verdicts: int
    server: dict[str, int]

    @property
    def lost(self) -> int:
        return self.items - self.stored

    def line(self) -> str:
        state = "finished" if self.finished else "STOPPED at the cap"
        req = self.server.get("requests", 0)
        missing = f"{self.lost} lost" if self.finished else f"{self.lost} not stored yet"
        return (f"{self.seconds:7.1f}s {state}: {self.stored}/{self.items} stored, {missing}, "
                f"{self.duplicated} duplicated, {self.errors} errors, {self.verdicts} verdicts; server: {req} "
                f"requests for {self.server.get('distinct_prompts', 0)} prompts, faults "
                f"{ {k: v for k, v in self.server.items() if k not in _NOT_FAULTS} }")


_NOT_FAULTS = {"requests", "ok", "streamed", "distinct_prompts", "max_concurrent"}


def args(doc: str, faults: str, rate: float) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=50, help="items per KOR-Bench subset (5 subsets)")
    ap.add_argument("--delay", type=float, default=0.5, help="the fake server's answer time, s")
    ap.add_argument("--faults", default=faults)
    ap.add_argument("--rate", type=float, default=rate, help="share of prompts whose first attempt fails")
    ap.add_argument("--retry-after", default="1")
    ap.add_argument("--hang-s", type=float, default=120.0, help="how long a `hang` fault sleeps before its 504")
    ap.add_argument("--client-src", default="", help="PYTHONPATH of the CLI under test (default: this checkout)")
    ap.add_argument("--cap", type=float, default=600.0, help="stop a run after this many seconds")
    ap.add_argument("--repeat", type=int, default=1, help="fault-free / faulted pairs")
    return ap.parse_args()


def cli_run(url: str, limit: int, root: Path, client_src: str, cap: float,
            flags: tuple[str, ...] = ()) -> tuple[float, bool, str]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "REASONEVAL_CACHE_DIR": str(root / "cache")}
    env.pop("REASONEVAL_STORE", None)
    if client_src:
        env["PYTHONPATH"] = client_src
    script = Path(sys.executable).with_name("reasoneval")  # the console script, as a user runs it
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "reasoneval"]
    cmd += ["run", "korbench", "--limit", str(limit), "--model", f"openai-compat/fake@{url}", "--no-progress",
            "--store", str(root / "s.db"), *flags]
    t0 = time.perf_counter()
    with open(root / "stderr.txt", "w") as err:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=root)
        try:
            p.wait(timeout=cap)
            finished = True
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            finished = False
    dt = time.perf_counter() - t0
    stderr = (root / "stderr.txt").read_text(errors="replace")
    if finished and p.returncode not in (0, 1, 3):  # 3: some items stored as errors; 1: every one
        raise SystemExit(f"run failed ({p.returncode}): {stderr[-2000:]}")
    return dt, finished, stderr


def audit(db: Path, items: int) -> tuple[int, int, int, int]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT item_key, COUNT(*), SUM(error IS NOT NULL) FROM completions "
                           "WHERE role='answer' GROUP BY item_key, sample").fetchall()
        verdicts = con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    finally:
        con.close()
    return len(rows), sum(n - 1 for _, n, _ in rows), sum(1 for _, _, e in rows if e), verdicts


def one(a: argparse.Namespace, faulted: bool) -> Outcome:
    mix = ["--fault-rate", str(a.rate), "--faults", a.faults] if faulted else []
    srv = FakeServerProc("--delay", str(a.delay), "--stream", "--retry-after", a.retry_after, "--timeout-sleep",
                         str(a.hang_s), *mix)
    try:
        with tempfile.TemporaryDirectory() as td:
            dt, finished, _ = cli_run(srv.url, a.limit, Path(td), a.client_src, a.cap)
            stats = srv.stats()
            stored, dup, errors, verdicts = audit(Path(td) / "s.db", 5 * a.limit)
    finally:
        srv.stop()
    return Outcome(dt, finished, 5 * a.limit, stored, dup, errors, verdicts, stats)


def main(doc: str, faults: str, rate: float, with_window: bool) -> None:
    """Prints the pairs and the verdict against the bound: 3x the fault-free time (plus one abandonment window
    of the default settings when ``with_window``)."""
    a = args(doc, faults, rate)
    o = HTTPOptions()
    # the adaptive abandonment window of the default options at this server's latency, taking the p99 as the
    # delay (the real p99 is a little longer, so the real window too: the bound printed is the stricter)
    window = min(o.timeout_s, max(2 * o.hedge_min_s, o.abandon_multiple * a.delay)) if with_window else 0.0
    print(f"reasoneval run korbench --limit {a.limit} ({5 * a.limit} items), default settings, fake server delay "
          f"{a.delay}s streaming; faults: {a.rate:.0%} of prompts get one of {a.faults} (first attempt); "
          f"client: {a.client_src or 'this checkout'}; {os.cpu_count()} CPUs")
    ok = True
    for _ in range(a.repeat):
        base = one(a, False)
        hot = one(a, True)
        bound = 3 * base.seconds + window
        fits = hot.finished and hot.seconds <= bound and hot.lost == 0 and hot.duplicated == 0
        ok &= fits
        print(f"  fault-free {base.line()}")
        print(f"  faulted    {hot.line()}")
        print(f"  bound 3 x {base.seconds:.1f}s" + (f" + {window:g}s (abandonment window)" if window else "")
              + f" = {bound:.1f}s: {'within' if fits else 'NOT within'} ({hot.seconds / base.seconds:.2f}x the "
              "fault-free time)", flush=True)
    sys.exit(0 if ok else 1)
