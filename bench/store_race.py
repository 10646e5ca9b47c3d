"""Many processes opening one missing store at the same moment (issue 23, defect 10).

Each round forks ``--procs`` processes that wait on a barrier, then open ``RunStore`` on the same missing path
and add one run each. Prints how many openers failed (before atomic creation: "is an empty file (0 bytes)"),
whether every round ended with one complete file holding every run, and the time of one open of a new store
and of an existing one (the atomic creation adds a temporary file and a link).

    python bench/store_race.py [--procs 8] [--rounds 12]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from reasoneval.store.sqlite import RunStore


def _open(path: str, barrier: Any, out: Any) -> None:
    try:
        barrier.wait(30)
        s = RunStore(path)
        s.upsert_run(f"r{os.getpid()}", "toy", "a", "zero-shot", "m", {})
        s.close()
        out.put("ok")
    except BaseException as e:  # noqa: BLE001 - counted
        out.put(f"{type(e).__name__}: {e}"[:120])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=12)
    a = ap.parse_args()
    ctx = multiprocessing.get_context("fork")
    root = Path(tempfile.mkdtemp(prefix="store-race-"))
    failed, whole, example = 0, 0, ""
    for r in range(a.rounds):
        path = root / f"{r}.db"
        barrier, out = ctx.Barrier(a.procs), ctx.Queue()
        ps = [ctx.Process(target=_open, args=(str(path), barrier, out)) for _ in range(a.procs)]
        for p in ps:
            p.start()
        res = [out.get(timeout=120) for _ in ps]
        for p in ps:
            p.join()
        bad = [x for x in res if x != "ok"]
        failed += len(bad)
        example = example or (bad[0] if bad else "")
        con = sqlite3.connect(path)
        ok = (con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
              and con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == a.procs - len(bad))
        con.close()
        whole += ok
    print(f"{failed} of {a.procs * a.rounds} openers failed; {whole} of {a.rounds} rounds: one complete file "
          f"holding every successful opener's run" + (f"; e.g. {example}" if example else ""))
    new, old = [], []
    for i in range(30):
        t = time.perf_counter()
        RunStore(root / f"t{i}.db").close()
        new.append(time.perf_counter() - t)
        t = time.perf_counter()
        RunStore(root / f"t{i}.db").close()
        old.append(time.perf_counter() - t)
    print(f"open a new store: {1000 * statistics.median(new):.1f} ms median; an existing one: "
          f"{1000 * statistics.median(old):.1f} ms (30 each)")


if __name__ == "__main__":
    main()
