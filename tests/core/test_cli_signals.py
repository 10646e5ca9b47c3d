"""SIGTERM (and SIGHUP) stop `reasoneval run` like Ctrl-C: what is done is kept, the run is marked
interrupted, a message says how to resume, and the re-run asks only what is missing."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(con.execute("SELECT COUNT(*) FROM completions").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell script's background job has it


@pytest.mark.parametrize("sig,preexec,code", [
    (signal.SIGTERM, None, 143),
    (signal.SIGTERM, _ignore_sigint, 143),  # `reasoneval run ... &` in a script, then `kill PID`
    (signal.SIGHUP, None, 129),
    (signal.SIGINT, None, 130),  # Ctrl-C, as before
])
def test_a_stop_signal_keeps_what_is_done_and_marks_the_run(tmp_path: Path, make_server, sig: int,
                                                            preexec: Callable[[], None] | None, code: int) -> None:
    srv = make_server("--delay", "0.2")
    db = tmp_path / "s.db"
    args = [sys.executable, "-m", "reasoneval.cli", "run", "toy", "--model", f"openai-compat/m@{srv.url}",
            "--store", str(db), "--no-progress", "--concurrency", "2"]
    p = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=preexec)
    deadline = time.time() + 60
    while _stored(db) < 6 and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert _stored(db) >= 6, "the run never got going"
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert p.returncode == code, err[-2000:]
    assert "interrupted" in err and "re-run the same command to resume it" in err and "Traceback" not in err
    if sig != signal.SIGINT:
        assert f"interrupted by {signal.Signals(sig).name}" in err
    con = sqlite3.connect(db)
    status, = con.execute("SELECT status FROM runs").fetchone()
    kept = con.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
    con.close()
    assert status == "interrupted" and 6 <= kept < 50
    assert not list(tmp_path.glob("s.db.*.lock"))  # the run lock was released
    asked = srv.stats()["requests"]
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "(resumed)" in again.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT status FROM runs").fetchone()[0] == "done"
    assert con.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 50
    con.close()
    assert srv.stats()["requests"] - asked == 50 - kept  # nothing kept is asked again
