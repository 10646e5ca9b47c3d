"""Runner + store: everything stored before scoring, cache makes reruns free, no duplicates."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import toybench  # noqa: F401  (registers "toy")

from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.models.openai_compat import from_spec
from reasoneval.report.collect import view
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


def _run(store: RunStore, url: str, mode: str = "zero-shot", retry: bool = False, limit: int | None = None):
    bench = registry.get("toy")
    spec = RunSpec("toy", None, mode, f"openai-compat/fake@{url}", GenParams(max_tokens=32), limit=limit)
    backend = from_spec(spec.model, 8)

    async def go():
        try:
            return await Runner(bench, spec, store, backend, concurrency=8, progress=False).run(retry)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_run_stores_scores_and_caches(tmp_path: Path, fake_server) -> None:
    store = RunStore(tmp_path / "s.db")
    r1 = _run(store, fake_server.url)
    assert r1.units == 50 and r1.generated == 50 and r1.errors == 0 and not r1.resumed
    v = view(store, r1.run_id)
    assert v.stats["items"] == 50
    overall = v.tables[0].rows[-1]
    # gold is the repeated word except for every third item (i % 3 == 0): 33 of 50 are right
    assert overall[0] == "overall" and overall[2] == round(100 * 33 / 50, 2)
    before = fake_server.stats()["requests"]
    r2 = _run(store, fake_server.url)
    assert r2.resumed and r2.generated == 0 and r2.reused == 50
    assert fake_server.stats()["requests"] == before  # nothing re-asked
    db = sqlite3.connect(tmp_path / "s.db")
    assert db.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 50
    assert db.execute("SELECT COUNT(DISTINCT item_key || sample) FROM completions").fetchone()[0] == 50


def test_other_run_hits_response_cache(tmp_path: Path, fake_server) -> None:
    store = RunStore(tmp_path / "s.db")
    _run(store, fake_server.url, limit=5)
    before = fake_server.stats()["requests"]
    r = _run(store, fake_server.url, limit=10)  # a different run: first 5 per subset come from the cache
    assert r.cached == 10 and r.generated == 10
    assert fake_server.stats()["requests"] == before + 10


def test_multi_turn_protocol_stores_every_turn(tmp_path: Path, fake_server) -> None:
    store = RunStore(tmp_path / "s.db")
    r = _run(store, fake_server.url, mode="retry")
    rows = view(store, r.run_id).rows
    wrong_first = [x for x in rows if x.turns[0].verdict and not x.turns[0].verdict.correct]
    assert wrong_first and all(len(x.turns) == 3 for x in wrong_first)
    # the follow-up replays the extracted answer as the assistant turn
    msgs = wrong_first[0].turns[1].prompt.messages
    assert msgs[1].role == "assistant" and msgs[1].content == wrong_first[0].turns[0].verdict.extracted


def test_parquet_export(tmp_path: Path, fake_server) -> None:
    import pytest

    pq = pytest.importorskip("pyarrow.parquet")
    from reasoneval.store.export import export

    store = RunStore(tmp_path / "s.db")
    r = _run(store, fake_server.url, limit=3)
    n = export(store, r.run_id, "default", tmp_path / "o.parquet")
    t = pq.read_table(tmp_path / "o.parquet")
    assert n == t.num_rows == 6
    assert set(t.column("subset").to_pylist()) == {"a", "b"}
