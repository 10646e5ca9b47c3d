"""SIGKILL a run part-way, re-run the same command: the store equals an uninterrupted run's."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def _cmd(url: str, store: Path) -> list[str]:
    return [sys.executable, "-m", "reasoneval.cli", "run", "toy", "--model", f"openai-compat/fake@{url}",
            "--concurrency", "4", "--store", str(store), "--no-progress"]


def _dump(store: Path) -> list[tuple]:
    db = sqlite3.connect(store)
    return db.execute("SELECT item_key, sample, turn, role, text, error FROM completions "
                      "ORDER BY item_key, sample, turn, role").fetchall()


def test_sigkill_then_resume_equals_uninterrupted(tmp_path: Path, make_server) -> None:
    srv = make_server("--delay", "0.3")
    interrupted = tmp_path / "a.db"
    p = subprocess.Popen(_cmd(srv.url, interrupted), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until part of the run is stored
        if interrupted.exists():
            try:
                n = sqlite3.connect(interrupted).execute("SELECT COUNT(*) FROM completions").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= 10:
                break
        time.sleep(0.02)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    partial = len(_dump(interrupted))
    assert 10 <= partial < 50, partial
    before = srv.stats()["requests"]
    out = subprocess.run(_cmd(srv.url, interrupted), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "(resumed)" in out.stderr
    # nothing generated twice: the second process asked only for what was missing
    assert srv.stats()["requests"] - before == 50 - partial

    clean = tmp_path / "b.db"
    out2 = subprocess.run(_cmd(srv.url, clean), capture_output=True, text=True, timeout=120)
    assert out2.returncode == 0, out2.stderr
    a, b = _dump(interrupted), _dump(clean)
    assert len(a) == 50 and a == b
    keys = [(r[0], r[1], r[2], r[3]) for r in a]
    assert len(keys) == len(set(keys))
