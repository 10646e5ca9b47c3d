"""An import is one transaction per run: killed (SIGKILL mid-write) or stopped by a full disk, it leaves nothing
of the run, says so in one line, and the next import writes the run whole (never "already stored" with rows
missing). A run an older version left half-written is replaced whole."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cliutil import one_line_error

ITEMS = 250  # KOR-Bench Operation's items
HOOK = """
import os, sys, time
from reasoneval.store import sqlite as S
_init = S.RunStore.__init__
def init(self, *a, **k):
    _init(self, *a, **k)
    if self.readonly:
        return
    def trace(sql):
        if sql.startswith("INSERT OR REPLACE INTO verdicts"):  # the completions are written, nothing committed
            open(os.environ["MARK"], "w").close()
            time.sleep(120)
    self.db.set_trace_callback(trace)
S.RunStore.__init__ = init
sys.argv = ["reasoneval", *sys.argv[1:]]
from reasoneval.cli import main
main()
"""


def lmeval_file(d: Path, repeat: int = 1, size: int = 200) -> Path:
    """An lm-eval ``--log_samples`` file answering every Operation item ``repeat`` times (wrong answers)."""
    m = d / "model-x"
    m.mkdir(parents=True)
    f = m / "samples_korbench_operation_2026-12-02T09-03-26.615803.jsonl"
    with f.open("w") as out:
        for r in range(repeat):
            for i in range(1, ITEMS + 1):
                out.write(json.dumps({"doc_id": i - 1, "doc": {"idx": str(i)},
                                      "resps": [[f"answer {r} to {i}: " + "x" * size]]}) + "\n")
    return f


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def counts(store: Path) -> tuple[list[tuple[str, str]], int, int]:
    con = sqlite3.connect(store)
    try:
        runs = con.execute("SELECT run_id, status FROM runs").fetchall()
        comps = con.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
        verdicts = con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    finally:
        con.close()
    return runs, comps, verdicts


def test_an_import_killed_mid_write_leaves_nothing_and_the_next_one_writes_it_whole(tmp_path: Path) -> None:
    src = lmeval_file(tmp_path / "logs", repeat=4)
    store = tmp_path / "s.db"
    mark = tmp_path / "mark"
    env = {**os.environ, "MARK": str(mark)}
    p = subprocess.Popen([sys.executable, "-c", HOOK, "import", "korbench", str(src.parent), "--store", str(store)],
                         cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while not mark.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), p.communicate()[1][-2000:]
        os.kill(p.pid, signal.SIGKILL)  # between the rows written and the commit
        p.wait()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == -signal.SIGKILL
    assert counts(store) == ([], 0, 0)  # nothing of the run: no `running` run with some rows
    again = cli("import", "korbench", str(src.parent), "--store", str(store), "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    (run,) = json.loads(again.stdout)
    assert not run["existed"] and run["items"] == 4 * ITEMS
    assert counts(store) == ([(run["run"], "complete")], 4 * ITEMS, 4 * ITEMS)
    third = json.loads(cli("import", "korbench", str(src.parent), "--store", str(store), "--json",
                           cwd=tmp_path).stdout)
    assert third[0]["existed"]


def test_a_run_an_older_version_left_half_written_is_written_whole(tmp_path: Path) -> None:
    src = lmeval_file(tmp_path / "logs")
    store = tmp_path / "s.db"
    first = cli("import", "korbench", str(src.parent), "--store", str(store), "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (run,) = json.loads(first.stdout)
    con = sqlite3.connect(store)  # what a kill between the run row and its rows left before
    con.execute("UPDATE runs SET status='running'")
    con.execute("DELETE FROM completions WHERE rowid % 3 = 0")
    con.execute("DELETE FROM verdicts WHERE rowid % 2 = 0")
    con.commit()
    con.close()
    again = cli("import", "korbench", str(src.parent), "--store", str(store), "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)[0]["existed"] is False
    assert counts(store) == ([(run["run"], "complete")], ITEMS, ITEMS)


def _can_mount_tmpfs() -> bool:
    try:
        return subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs unshare -rm (user + mount namespaces) and tmpfs")
def test_a_full_disk_during_import_is_one_line_and_the_next_import_completes(tmp_path: Path) -> None:
    """A real full disk: the store lies on a 1 MiB tmpfs and the import needs several."""
    src = lmeval_file(tmp_path / "logs", repeat=4, size=2000)
    small = tmp_path / "small"
    small.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    # create the store on the small disk, import into it, then copy what is left out of the namespace
    script = ('mount -t tmpfs -o size=1m tmpfs "$0" && "$1" -m reasoneval.cli import korbench "$2" --store "$0/s.db"; '
              'rc=$?; cp "$0"/s.db* "$3"/; exit $rc')
    p = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(small), sys.executable, str(src.parent), str(out)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    line = one_line_error(p, "disk is full", "s.db")
    assert "Traceback" not in p.stderr, line
    store = out / "s.db"
    assert counts(store) == ([], 0, 0)  # nothing of the run: never "already stored" with rows missing
    again = cli("import", "korbench", str(src.parent), "--store", str(store), "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    (run,) = json.loads(again.stdout)
    assert not run["existed"] and counts(store) == ([(run["run"], "complete")], 4 * ITEMS, 4 * ITEMS)


def test_judge_calls_commit_with_their_run(tmp_path: Path) -> None:
    from reasoneval.core.values import Completion, Item, Outcome, Prompt, Verdict
    from reasoneval.store.imported import ImportedRunRow, put_imported_run, stored_items
    from reasoneval.store.sqlite import RunStore

    st = RunStore(tmp_path / "s.db")
    item = Item("toy", "a", "1", {"q": "x"}, "gold")
    rows = [(item, 0, [(Prompt.chat("q"), Completion("ans"), Verdict(Outcome.CORRECT, "gold", "m"))])]
    run = ImportedRunRow("r1", "toy", "*", "zero-shot", "model-x", {"origin": {}})
    n = put_imported_run(st, run, rows, "default", judged=[("a/1", 0, 0, "a", Prompt.chat("judge?"),
                                                            Completion("yes"))])
    assert n == 2 and st.get_run("r1")["status"] == "complete"
    got = {(c.role, c.completion.text) for c in st.completions("r1")}
    assert got == {("answer", "ans"), ("judge", "yes")}
    assert [it.key for it in stored_items(st, "r1") or []] == ["a/1"]
    # written again (an earlier half import): replaced whole, nothing doubled
    put_imported_run(st, run, rows, "default")
    assert {(c.role, c.completion.text) for c in st.completions("r1")} == {("answer", "ans")}
    st.close()
