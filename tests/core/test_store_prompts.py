"""Each distinct prompt is stored once (the ``prompts`` table, keyed by its hash): a run's samples, and other runs
sending the same prompts, refer to it. Stores written before keep their prompts inline, are read as they are,
and take new rows in the shared form once opened for writing."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from reasoneval.core.values import Completion, Prompt, Usage
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import RunStore

# the store's tables before the prompts table and the later columns (a store of the first versions)
OLD_SCHEMA = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY, created REAL, updated REAL, benchmark TEXT, subset TEXT, mode TEXT,
  model TEXT, spec_json TEXT, status TEXT);
CREATE TABLE completions (run_id TEXT, item_key TEXT, sample INTEGER, turn INTEGER, role TEXT, subset TEXT,
  prompt_json TEXT, cache_key TEXT, text TEXT, finish_reason TEXT, prompt_tokens INTEGER, completion_tokens INTEGER,
  latency_s REAL, error TEXT, created REAL, PRIMARY KEY (run_id, item_key, sample, turn, role));
CREATE TABLE verdicts (run_id TEXT, item_key TEXT, sample INTEGER, turn INTEGER, scorer TEXT, outcome TEXT,
  extracted TEXT, method TEXT, detail_json TEXT, created REAL, PRIMARY KEY (run_id, item_key, sample, turn, scorer));
CREATE TABLE cache (key TEXT PRIMARY KEY, text TEXT, finish_reason TEXT, prompt_tokens INTEGER,
  completion_tokens INTEGER, latency_s REAL, created REAL);
"""

LONG = "A rule that every sample of the item is sent. " * 80  # a multi-kilobyte prompt, as benchmarks send


def _prompt(i: int) -> Prompt:
    return Prompt.chat(f"{LONG}\nQuestion {i}: what is {i} + {i}?", system="Be brief.")


def _put(st: RunStore, run_id: str, items: int, samples: int, writer: bool = False) -> None:
    async def through_writer() -> None:
        for i in range(items):
            for k in range(samples):
                await st.aput_completion(run_id, f"s/{i}", k, 0, "answer", "s", _prompt(i), f"{run_id}{i}{k}",
                                         Completion(f"[[{2 * i}]]", "stop", Usage(100, 5), 0.1))
        st.close_writer()

    if writer:
        asyncio.run(through_writer())
        return
    for i in range(items):
        for k in range(samples):
            st.put_completion(run_id, f"s/{i}", k, 0, "answer", "s", _prompt(i), f"{run_id}{i}{k}",
                              Completion(f"[[{2 * i}]]", "stop", Usage(100, 5), 0.1))


def _count(st: RunStore, sql: str) -> int:
    return int(st.db.execute(sql).fetchone()[0])


@pytest.mark.parametrize("writer", [False, True], ids=["put_completion", "writer-thread"])
def test_a_prompt_is_stored_once_for_all_its_samples_and_runs(tmp_path: Path, writer: bool) -> None:
    st = RunStore(tmp_path / "s.db")
    _put(st, "a", items=3, samples=5, writer=writer)
    _put(st, "b", items=2, samples=2, writer=writer)  # the same prompts again, from another run
    assert _count(st, "SELECT COUNT(*) FROM prompts") == 3
    assert _count(st, "SELECT COUNT(*) FROM completions") == 19
    assert _count(st, "SELECT COUNT(*) FROM completions WHERE prompt_json IS NOT NULL") == 0
    assert _count(st, "SELECT COUNT(DISTINCT prompt_hash) FROM completions") == 3
    for run_id, items, samples in (("a", 3, 5), ("b", 2, 2)):
        got = list(st.completions(run_id))
        assert len(got) == items * samples
        assert all(c.prompt == _prompt(int(c.item_key[2:])) for c in got)
    # the prompt's text is in the file once: 15 answers of run a cost far less than 15 copies of it
    size = sum(len(r[0]) for r in st.db.execute("SELECT json FROM prompts"))
    assert size > 3 * len(LONG) and (tmp_path / "s.db").stat().st_size < 8 * size
    st.close()


def test_an_old_store_reads_its_inline_prompts_and_takes_shared_ones_after_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO completions VALUES ('r','s/0',0,0,'answer','s',?,'ck','[[0]]','stop',1,2,0.5,NULL,0)",
               ('{"text":"the old prompt"}',))
    db.commit()
    db.close()
    ro = RunStore(path, readonly=True)  # read-only: nothing is added to the file
    assert [c.prompt for c in ro.completions("r")] == [Prompt.raw("the old prompt")]
    ro.db.close()
    assert sqlite3.connect(path).execute("SELECT 1 FROM sqlite_master WHERE name='prompts'").fetchone() is None
    st = RunStore(path)  # opened for writing: migrated
    assert "prompt_hash" in {r[1] for r in st.db.execute("PRAGMA table_info(completions)")}
    _put(st, "r", items=2, samples=2)
    got = {(c.item_key, c.sample): c.prompt for c in st.completions("r")}
    assert got[("s/0", 0)] == _prompt(0) and got[("s/1", 1)] == _prompt(1)  # the old row of s/0 replaced
    # a row that holds its prompt itself (as imported runs write them) beside the shared ones
    st.db.execute("INSERT INTO completions (run_id, item_key, sample, turn, role, subset, prompt_json, text) "
               "VALUES ('r','s/9',0,0,'answer','s','{\"text\":\"inline again\"}','x')")
    got = {c.item_key: c.prompt for c in st.completions("r")}
    assert got["s/9"] == Prompt.raw("inline again") and got["s/1"] == _prompt(1)
    assert _count(st, "SELECT COUNT(*) FROM prompts") == 2
    st.close()


def test_deleting_a_run_removes_the_prompts_only_it_used(tmp_path: Path) -> None:
    st = RunStore(tmp_path / "s.db")
    _put(st, "a", items=3, samples=2)
    _put(st, "b", items=1, samples=2)  # shares prompt 0 with run a
    st.delete_runs(["a"])
    assert _count(st, "SELECT COUNT(*) FROM prompts") == 1
    assert [c.prompt for c in st.completions("b")] == [_prompt(0), _prompt(0)]
    st.delete_runs(["b"])
    assert _count(st, "SELECT COUNT(*) FROM prompts") == 0
    st.close()


def test_a_missing_shared_prompt_is_a_damaged_store_not_a_traceback(tmp_path: Path) -> None:
    st = RunStore(tmp_path / "s.db")
    _put(st, "a", items=1, samples=1)
    st.db.execute("DELETE FROM prompts")
    with pytest.raises(StoreError, match="cannot be decoded"):
        list(st.completions("a"))
    assert [c.item_key for c in st.completions("a", prompts=False)] == ["s/0"]  # tables never read prompts
    st.close()
