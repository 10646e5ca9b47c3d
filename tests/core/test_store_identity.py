"""A store is one file: links resolved, hard links refused, created atomically, foreign SQLite files refused."""

from __future__ import annotations

import errno
import hashlib
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cliutil import one_line_error as _one_line_error

from reasoneval.store import identity
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import SCHEMA, RunStore


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---- symbolic links: one lock, one log --------------------------------------------------------------------

def test_a_symlinked_store_shares_the_run_lock_of_its_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "s.db"
    RunStore(real).close()
    link = tmp_path / "link.db"
    link.symlink_to(real)
    a, b = RunStore(link), RunStore(real)
    try:
        assert a.real == b.real == real.resolve()
        with a.run_lock("r1"), pytest.raises(StoreError, match="already running on store .*link.db|already running"):
            with b.run_lock("r1"):
                pass
        with b.run_lock("r1"):  # released: the other name takes it
            pass
    finally:
        a.close()
        b.close()


def test_a_second_run_through_a_symlink_is_refused(tmp_path: Path, make_server) -> None:
    """The audit's case: one run by the store's name, the same run by a symlink to it (before: the run was
    sent twice, 934 requests for 500 items)."""
    srv = make_server("--delay", "0.3")
    RunStore(tmp_path / "s.db").close()
    (tmp_path / "link.db").symlink_to(tmp_path / "s.db")
    args = ["run", "toy", "--model", f"openai-compat/m@{srv.url}", "--no-progress", "--concurrency", "1"]
    first = subprocess.Popen([sys.executable, "-m", "reasoneval.cli", *args, "--store", str(tmp_path / "s.db")],
                             cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while not list(tmp_path.glob("s.db.*.lock")) and time.time() < deadline:
            time.sleep(0.1)
        assert list(tmp_path.glob("s.db.*.lock")), "first run never started"
        line = _one_line_error(_cli(*args, "--store", str(tmp_path / "link.db"), cwd=tmp_path), "already running")
        assert f"pid {first.pid}" in line
    finally:
        first.kill()
        first.wait()
    assert sorted(p.name for p in tmp_path.glob("link.db*")) == ["link.db"]  # no second log, no second lock


# ---- hard links -------------------------------------------------------------------------------------------

def test_a_store_with_two_hard_links_is_refused_for_writing_and_left_unchanged(tmp_path: Path) -> None:
    s = RunStore(tmp_path / "s.db")
    s.upsert_run("r", "toy", "a", "zero-shot", "m", {})
    s.close()
    os.link(tmp_path / "s.db", tmp_path / "other.db")
    before = _digest(tmp_path / "s.db")
    for name in ("s.db", "other.db"):
        with pytest.raises(StoreError, match="2 hard links") as ei:
            RunStore(tmp_path / name)
        assert "\n" not in str(ei.value) and name in str(ei.value)
    assert _digest(tmp_path / "s.db") == before
    assert not (tmp_path / "s.db-wal").exists() and not (tmp_path / "other.db-wal").exists()
    ro = RunStore(tmp_path / "other.db", readonly=True)  # reading writes nothing: allowed
    assert [r["run_id"] for r in ro.find_runs()] == ["r"]
    ro.close()


def test_cli_run_on_a_hard_linked_store_is_one_line(tmp_path: Path, fake_server) -> None:
    RunStore(tmp_path / "s.db").close()
    os.link(tmp_path / "s.db", tmp_path / "h.db")
    p = _cli("run", "toy:a", "--model", f"openai-compat/m@{fake_server.url}", "--store", "h.db", "--no-progress",
             cwd=tmp_path)
    _one_line_error(p, "h.db", "2 hard links", "cp")
    assert fake_server.stats().get("requests", 0) == 0


def test_a_link_count_that_settles_is_a_store_being_created(tmp_path: Path) -> None:
    """Between the link into place and the removal of the temporary name a new store has two links for a
    moment; an opener that sees that waits instead of refusing."""
    RunStore(tmp_path / "s.db").close()
    tmp = tmp_path / ".s.db.1.new"
    os.link(tmp_path / "s.db", tmp)
    threading.Timer(0.2, tmp.unlink).start()
    RunStore(tmp_path / "s.db").close()


def test_the_name_left_by_a_creator_that_died_is_removed(tmp_path: Path) -> None:
    """A creator killed between linking the new store into place and removing its temporary name leaves two
    links; the temporary name of a dead process is not a second name of the store."""
    RunStore(tmp_path / "s.db").close()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = tmp_path / f".s.db.{dead.pid}.0badf00d.new"
    os.link(tmp_path / "s.db", left)
    live = tmp_path / f".s.db.{os.getpid()}.0badf00d.new"  # a creator still running: not touched
    RunStore(tmp_path / "s.db").close()
    assert not left.exists()
    os.link(tmp_path / "s.db", live)
    with pytest.raises(StoreError, match="2 hard links"):
        RunStore(tmp_path / "s.db")
    assert live.exists()


# ---- atomic creation --------------------------------------------------------------------------------------

def _open_at(path: str, barrier: multiprocessing.synchronize.Barrier, out: multiprocessing.queues.Queue) -> None:
    try:
        barrier.wait(30)
        s = RunStore(path)
        s.upsert_run(f"r{os.getpid()}", "toy", "a", "zero-shot", "m", {})
        s.close()
        out.put("ok")
    except BaseException as e:  # noqa: BLE001 - reported to the test
        out.put(f"{type(e).__name__}: {e}")


def test_many_processes_creating_one_store_at_once_all_use_one_complete_file(tmp_path: Path) -> None:
    """Before: two runs starting on a missing store failed 1 in 6 with "is an empty file (0 bytes)"."""
    ctx = multiprocessing.get_context("fork")
    procs_per_round, rounds = 8, 12
    for r in range(rounds):
        path = tmp_path / f"r{r}" / "s.db"
        path.parent.mkdir()
        barrier, out = ctx.Barrier(procs_per_round), ctx.Queue()
        ps = [ctx.Process(target=_open_at, args=(str(path), barrier, out)) for _ in range(procs_per_round)]
        for p in ps:
            p.start()
        results = [out.get(timeout=60) for _ in ps]
        for p in ps:
            p.join(30)
        assert results == ["ok"] * procs_per_round, results
        con = sqlite3.connect(path)
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == procs_per_round  # one file, every run
        assert con.execute("PRAGMA application_id").fetchone()[0] == identity.APP_ID
        con.close()
        assert os.stat(path).st_nlink == 1
        assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".new")) == []


def test_cli_runs_racing_on_a_missing_store_all_finish(tmp_path: Path, fake_server) -> None:
    for r in range(2):
        store = tmp_path / f"race{r}.db"
        ps = [subprocess.Popen([sys.executable, "-m", "reasoneval.cli", "run", f"toy:{sub}", "--model",
                                f"openai-compat/m@{fake_server.url}", "--store", str(store), "--no-progress"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for sub in ("a", "b", "a,b")]
        outs = [p.communicate(timeout=120) for p in ps]
        assert [p.returncode for p in ps] == [0, 0, 0], [e[-1500:] for _, e in outs]
        con = sqlite3.connect(store)
        assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3
        con.close()


def test_creation_without_hard_links_renames_under_a_folder_lock(tmp_path: Path, monkeypatch) -> None:
    """File systems without hard links (link fails with EPERM): the same guarantee through a folder lock."""
    def no_link(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(identity.os, "link", no_link)
    path = tmp_path / "s.db"
    made: list[bool] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def init(db: sqlite3.Connection) -> None:
        db.executescript(SCHEMA)

    def make() -> None:
        try:
            barrier.wait(10)
            made.append(identity.create(path, init))
        except BaseException as e:  # noqa: BLE001 - reported to the test
            errors.append(e)

    ts = [threading.Thread(target=make) for _ in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and sorted(made) == [False] * 5 + [True]
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["s.db"]


def test_a_failed_creation_leaves_nothing_behind(tmp_path: Path) -> None:
    def broken(db: sqlite3.Connection) -> None:
        db.executescript(SCHEMA)
        raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError):
        identity.create(tmp_path / "s.db", broken)
    assert list(tmp_path.iterdir()) == []


# ---- SQLite files of other applications -------------------------------------------------------------------

def _foreign(path: Path, app_id: int = 0) -> str:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO users VALUES (1, 'ada')")
    if app_id:
        con.execute(f"PRAGMA application_id={app_id}")
    con.commit()
    con.close()
    return _digest(path)


def test_a_foreign_sqlite_file_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    before = _foreign(tmp_path / "app.db")
    for readonly in (False, True):
        with pytest.raises(StoreError, match="another application .*users") as ei:
            RunStore(tmp_path / "app.db", readonly=readonly)
        assert "\n" not in str(ei.value)
    assert _digest(tmp_path / "app.db") == before
    assert not (tmp_path / "app.db-wal").exists()


def test_a_file_marked_by_another_application_is_refused(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "x.db")
    con.execute("PRAGMA application_id=1234")
    con.executescript(SCHEMA)  # even with tables of our names
    con.close()
    with pytest.raises(StoreError, match="application id is 0x000004d2"):
        RunStore(tmp_path / "x.db")


def test_a_table_named_runs_is_not_enough(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "x.db")
    con.execute("CREATE TABLE runs (id INTEGER, start REAL)")  # e.g. an experiment tracker's
    con.close()
    with pytest.raises(StoreError, match=r"another application \(it holds other tables \(runs\)\)"):
        RunStore(tmp_path / "x.db")


def test_cli_refuses_a_foreign_sqlite_store(tmp_path: Path, fake_server) -> None:
    before = _foreign(tmp_path / "app.db")
    p = _cli("run", "toy:a", "--model", f"openai-compat/m@{fake_server.url}", "--store", "app.db", "--no-progress",
             cwd=tmp_path)
    _one_line_error(p, "app.db", "another application", "choose another --store")
    _one_line_error(_cli("runs", "--store", "app.db", cwd=tmp_path), "another application")
    assert _digest(tmp_path / "app.db") == before
    assert fake_server.stats().get("requests", 0) == 0


def test_an_old_store_without_the_marker_is_ours_and_gets_it(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "old.db")
    con.executescript(SCHEMA)  # the first stores' tables, no application id
    con.execute("INSERT INTO runs (run_id, spec_json, status) VALUES ('r', '{}', 'done')")
    con.commit()
    con.close()
    ro = RunStore(tmp_path / "old.db", readonly=True)
    assert [r["run_id"] for r in ro.find_runs()] == ["r"]
    ro.close()
    assert sqlite3.connect(tmp_path / "old.db").execute("PRAGMA application_id").fetchone()[0] == 0  # read only
    RunStore(tmp_path / "old.db").close()
    assert sqlite3.connect(tmp_path / "old.db").execute("PRAGMA application_id").fetchone()[0] == identity.APP_ID


def test_an_sqlite_file_without_tables_becomes_a_store(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "blank.db")
    con.execute("PRAGMA user_version=7")  # a valid database with no tables
    con.close()
    assert (tmp_path / "blank.db").stat().st_size > 0
    s = RunStore(tmp_path / "blank.db")
    s.upsert_run("r", "toy", "a", "zero-shot", "m", {})
    s.close()
