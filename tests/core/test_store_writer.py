"""The run's group-commit writer thread: completions, their cache rows and buffered verdicts all reach the store,
in order, with one commit per batch; a write nobody waits for still fails loudly."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.store import writer
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import RunStore


def _fill(store: RunStore, n: int) -> None:
    async def go() -> None:
        async def one(i: int) -> None:
            c = Completion(f"answer {i}", "stop", Usage(3, 4), 0.1)
            await store.aput_completion("r1", f"k{i}", 0, 0, "answer", "s", Prompt.chat(f"q{i}"), f"key{i}", c,
                                        cache=i % 2 == 0)
            store.put_verdict("r1", f"k{i}", 0, 0, "default", Verdict(Outcome.CORRECT, str(i), "m", {}),
                              buffered=True)

        await asyncio.gather(*(one(i) for i in range(n)))

    asyncio.run(go())


def test_completions_cache_rows_and_verdicts_all_land(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    store.upsert_run("r1", "b", "*", "m", "model", {})
    _fill(store, 1000)  # > 256 verdicts: some batches go through the writer thread
    store.flush()
    store.close_writer()
    assert store.count("r1") == 1000
    assert len(store.verdicts("r1", "default")) == 1000
    assert store.cache_get("key2") is not None and store.cache_get("key3") is None
    texts = {c.item_key: c.completion.text for c in store.completions("r1")}
    assert texts["k999"] == "answer 999" and len(texts) == 1000


def test_a_failed_verdict_batch_is_raised_when_the_writer_closes(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    store.upsert_run("r1", "b", "*", "m", "model", {})
    _fill(store, 10)  # starts the writer
    with sqlite3.connect(tmp_path / "s.db") as db:
        db.execute("DROP TABLE verdicts")  # the next verdict batch cannot be written
    for i in range(300):
        store.put_verdict("r1", f"x{i}", 0, 0, "default", Verdict(Outcome.CORRECT, None, "m", {}), buffered=True)
    with pytest.raises(StoreError):
        store.close_writer()
    assert store._writer is None


def test_cache_empty(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    assert store.cache_empty()
    store.upsert_run("r1", "b", "*", "m", "model", {})
    _fill(store, 2)
    store.close_writer()
    assert not store.cache_empty()


def test_completions_of_one_loop_iteration_are_committed_by_close_before_their_hand_over(tmp_path: Path) -> None:
    """Completions made during one event-loop iteration go to the writer thread together at the next one; a
    writer closed in between (the run's end, an interruption) still commits them."""
    store = RunStore(tmp_path / "s.db")
    store.upsert_run("r1", "b", "*", "m", "model", {})

    async def go() -> int:
        tasks = [asyncio.create_task(store.aput_completion("r1", f"k{i}", 0, 0, "answer", "s", Prompt.chat("q"),
                                                           f"key{i}", Completion(f"a{i}", "stop", Usage(1, 1), 0.1),
                                                           cache=True))
                 for i in range(50)]
        await asyncio.sleep(0)  # the tasks run up to their wait; their hand-over is the next iteration's
        assert store._writer is not None
        pending = sum(len(v) for v in store._writer._pending.values())
        store.close_writer()
        await asyncio.gather(*tasks)
        return pending

    assert asyncio.run(go()) == 50
    assert store.count("r1") == 50 and store.cache_get("key49") is not None


def test_one_prompt_is_stored_once_across_batches(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    store.upsert_run("r1", "b", "*", "m", "model", {})
    _fill(store, 10)
    _fill(store, 10)  # the same prompts again: their kept hashes
    store.close_writer()
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("SELECT COUNT(*) FROM prompts").fetchone()[0] == 10
        assert db.execute("SELECT COUNT(DISTINCT prompt_hash) FROM completions").fetchone()[0] == 10
    assert {c.prompt.messages[0].content for c in store.completions("r1")} == {f"q{i}" for i in range(10)}


def _one_per_turn(store: RunStore, n: int, spacing_s: float) -> None:
    """``n`` completions stored one at a time, ``spacing_s`` apart (answers arriving one by one), all awaited."""
    async def go() -> None:
        async def one(i: int) -> None:
            await asyncio.sleep(i * spacing_s)
            await store.aput_completion("r1", f"k{i}", 0, 0, "answer", "s", Prompt.chat(f"q{i}"), f"key{i}",
                                        Completion(f"answer {i}", "stop", Usage(3, 4), 0.1))

        await asyncio.gather(*(one(i) for i in range(n)))

    asyncio.run(go())


@pytest.mark.parametrize("gather_s, spacing_s, batches", [(0.5, 0.002, (1, 1)), (0.0, 0.05, (4, 8))])
def test_completions_arriving_one_by_one_share_a_commit_within_the_gather_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gather_s: float, spacing_s: float,
        batches: tuple[int, int]) -> None:
    # the writer, woken by the first, waits GATHER_S before it commits: 8 answers 2 ms apart are one transaction
    # (and one wake-up of the loop) with a 0.5 s gather; without it, answers 50 ms apart are committed one by one
    # (at least 4 commits of the 8, allowing for a writer thread slowed by a loaded machine)
    monkeypatch.setattr(writer, "GATHER_S", gather_s)
    store = RunStore(tmp_path / "s.db")
    store.upsert_run("r1", "b", "*", "m", "model", {})
    _one_per_turn(store, 8, spacing_s)
    assert store._writer is not None and batches[0] <= store._writer.batches <= batches[1]
    store.close_writer()
    assert store.count("r1") == 8
