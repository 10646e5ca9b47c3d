"""A store whose write-ahead log was deleted while another process holds it open is refused in one line (before,
a second run then reported success and was absent from the store); without that, stores open as before."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from cliutil import one_line_error

from reasoneval.core.values import Completion, Prompt
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import RunStore

HOLDER = """
import sys, time
from reasoneval.core.values import Completion, Prompt
from reasoneval.store.sqlite import RunStore
st = RunStore(sys.argv[1])
st.put_completion("held", "a/1", 0, 0, "answer", "a", Prompt.chat("q"), "k", Completion(text="x"))
print("ready", flush=True)
time.sleep(120)
"""


@pytest.fixture
def holder(tmp_path: Path):
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "s.db")], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        yield p
    finally:
        p.kill()
        p.wait()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_a_log_deleted_under_another_process_is_refused(tmp_path: Path, holder: subprocess.Popen,
                                                        make_server) -> None:
    store = tmp_path / "s.db"
    (tmp_path / "s.db-wal").unlink()
    with pytest.raises(StoreError, match=f"write-ahead log s.db-wal was deleted while process {holder.pid}"):
        RunStore(store)
    with pytest.raises(StoreError, match="write-ahead log"):
        RunStore(store, readonly=True)
    srv = make_server()
    p = _cli("run", "toy", "--model", f"openai-compat/m@{srv.url}", "--store", str(store), "--no-progress",
             cwd=tmp_path)
    one_line_error(p, "write-ahead log s.db-wal was deleted", f"process {holder.pid}")
    assert not (tmp_path / "s.db-wal").exists()  # nothing was written beside the holder's log
    holder.kill()
    holder.wait()
    # once the holder is gone the store opens (the -shm left behind is rebuilt) and a run completes
    p = _cli("run", "toy", "--model", f"openai-compat/m@{srv.url}", "--store", str(store), "--no-progress",
             cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    st = RunStore(store, readonly=True)
    assert sum(st.count(r["run_id"]) for r in st.find_runs() if r["benchmark"] == "toy") == 50


def test_a_store_another_process_holds_opens_as_usual(tmp_path: Path, holder: subprocess.Popen) -> None:
    st = RunStore(tmp_path / "s.db")
    st.put_completion("mine", "a/1", 0, 0, "answer", "a", Prompt.chat("q"), "k2", Completion(text="y"))
    assert st.count("held") == 1 and st.count("mine") == 1
    st.close()
    t = time.monotonic()
    assert RunStore(tmp_path / "s.db", readonly=True).count("mine") == 1
    assert time.monotonic() - t < 5
