"""A streamed import (rows scored and staged in chunks) stores what importing everything at once stores: the same
runs, completions and verdicts, whatever the chunk size and however the files' rows interleave; each distinct
prompt is stored once (the ``prompts`` table), and a store whose imported rows hold their prompts inline (as
imports wrote them before) still reads the same prompts."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from reasoneval.cli.common import bench_with_options
from reasoneval.runner import importer
from reasoneval.store.sqlite import RunStore


@pytest.fixture
def outputs(korbench_outputs: Path, tmp_path: Path) -> Path:
    """gpt-4o's operation and logic files, and the same operation file under another model's name."""
    d = tmp_path / "outputs"
    d.mkdir()
    for sub in ("operation", "logic"):
        shutil.copy(korbench_outputs / "main" / f"gpt-4o_{sub}_zero-shot.jsonl", d)
    shutil.copy(korbench_outputs / "main" / "gpt-4o_operation_zero-shot.jsonl", d / "twin_operation_zero-shot.jsonl")
    return d


def _import(outputs: Path, store_path: Path, interleave: bool) -> list[importer.ImportedRun]:
    bench = bench_with_options("korbench", [], None)
    options = {**bench.options.to_json(), "diff": False, "judge": None}
    rows = list(bench.outside_rows([str(outputs)], options))
    if interleave:  # every file's rows alternate: each run's rows come in many chunks, mixed with the others'
        by_file: dict[str, list] = {}
        for r in rows:
            by_file.setdefault(r.where.rpartition(":")[0], []).append(r)
        lists = list(by_file.values())
        rows = [r for i in range(max(map(len, lists))) for lst in lists if i < len(lst) for r in [lst[i]]]
    st = RunStore(store_path)
    try:
        return importer.import_rows(bench, st, rows, options, "test").runs
    finally:
        st.close()


def _content(store_path: Path) -> tuple[set[tuple], set[tuple], set[tuple]]:
    con = sqlite3.connect(store_path)
    try:
        comps = set(con.execute("SELECT run_id, item_key, sample, turn, text, COALESCE(prompt_json, "
                                "(SELECT json FROM prompts WHERE hash=prompt_hash)) FROM completions"))
        verdicts = set(con.execute("SELECT run_id, item_key, sample, turn, outcome, extracted FROM verdicts"))
        items = set(con.execute("SELECT run_id, item_key, item_json FROM items"))
    finally:
        con.close()
    return comps, verdicts, items


def test_small_interleaved_chunks_store_what_one_chunk_stores(outputs: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "CHUNK_ROWS", 10**9)
    whole = _import(outputs, tmp_path / "whole.db", interleave=False)
    monkeypatch.setattr(importer, "CHUNK_ROWS", 37)
    streamed = _import(outputs, tmp_path / "streamed.db", interleave=True)
    key = sorted((r.run_id, r.model, r.mode, r.items, r.completions) for r in whole)
    assert key == sorted((r.run_id, r.model, r.mode, r.items, r.completions) for r in streamed)
    assert {r.model for r in whole} == {"gpt-4o", "twin"} and sum(r.completions for r in whole) == 750
    a, b = _content(tmp_path / "whole.db"), _content(tmp_path / "streamed.db")
    assert len(a[0]) == 750 and len(a[1]) == 750
    assert a == b
    again = _import(outputs, tmp_path / "streamed.db", interleave=True)  # a no-op: every run is stored
    assert all(r.existed for r in again)


def test_each_distinct_prompt_is_stored_once_and_inline_prompts_still_read(outputs: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    runs = _import(outputs, store, interleave=False)
    con = sqlite3.connect(store)
    try:
        assert con.execute("SELECT COUNT(*) FROM completions WHERE prompt_json IS NOT NULL").fetchone()[0] == 0
        hashes = con.execute("SELECT COUNT(DISTINCT prompt_hash) FROM completions").fetchone()[0]
        assert hashes == 500  # 250 operation + 250 logic items: the twin's operation prompts are gpt-4o's
        assert con.execute("SELECT COUNT(*) FROM prompts").fetchone()[0] == hashes
    finally:
        con.close()

    def prompts() -> dict[tuple[str, str], object]:
        st = RunStore(store, readonly=True)
        try:
            return {(r.run_id, c.item_key): c.prompt for r in runs for c in st.completions(r.run_id)}
        finally:
            st.close()

    shared = prompts()
    assert len(shared) == 750 and all(p.messages for p in shared.values())  # type: ignore[attr-defined]
    con = sqlite3.connect(store)  # the rows as imports wrote them before: each prompt inline, no prompts table rows
    with con:
        con.execute("UPDATE completions SET prompt_json=(SELECT json FROM prompts WHERE hash=prompt_hash), "
                    "prompt_hash=NULL")
        con.execute("DELETE FROM prompts")
    con.close()
    assert prompts() == shared
