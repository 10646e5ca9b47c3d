"""The report's fast reads (issue 34): the tables' compact rows come from ``RunStore.compact_answers`` (no
completion made, two flags of each text), and the HTML item browser reads each run's prompts and texts in turn
(``RunStore.answer_texts``) beside compact rows. Both must give exactly what the full rows give, and a damaged
stored prompt stays the store's one-line error on the compact path too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_slim_rows import _store

from reasoneval.core import registry
from reasoneval.report import collect
from reasoneval.report import item_chunks as ic
from reasoneval.report.html_page import build_page
from reasoneval.report.slim import SlimRow
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import RunStore


@pytest.mark.parametrize("name, subsets, mode, samples, turns, options, reasoning", [
    ("korbench", ["operation", "cipher"], "zero-shot", 2, 1, {}, True),
    ("korbench", ["operation", "logic"], "self-correction", 2, 3, {"scoring": "corrected"}, None),
], ids=["one-turn", "multi-turn"])
def test_html_item_data_from_compact_rows_and_texts_equals_full_rows(
        tmp_path: Path, name: str, subsets: list[str], mode: str, samples: int, turns: int, options: dict[str, Any],
        reasoning: bool | None) -> None:
    st, run_id = _store(tmp_path, registry.create(name, options), name, subsets, mode, samples, turns, options,
                        reasoning)
    full = collect.view(st, run_id, slim=False, prompts=True)
    compact = collect.view(st, run_id, slim=True)
    assert all(isinstance(r, SlimRow) for r in compact.rows)
    assert [(r.item_key, r.sample) for r in compact.rows] == [(r.item_key, r.sample) for r in full.rows]
    shared: dict[str, Any] = {}
    page_full, _ = build_page([full], load_items=False)
    page_compact, _ = build_page([compact], load_items=False,
                                 texts=lambda v: st.answer_texts(v.run["run_id"], prompt_cache=shared))
    got, want = ic.page_data(page_compact), ic.page_data(page_full)
    assert got["items"] == want["items"] and got["chunks"] == want["chunks"]
    # the texts are really there (not empty strings standing in for them)
    texts = [turn[1] for chunk in got["chunks"] for row in chunk["turns"] for turn in row]
    assert len(texts) == len(full.rows) * turns and any("[[" in t for t in texts)
    prompts = [turn[0] for chunk in got["chunks"] for row in chunk["turns"] for turn in row]
    assert all(p for p in prompts)  # every turn's prompt, as the full rows carry it
    st.close()


def _one_run(tmp_path: Path) -> tuple[RunStore, str]:
    return _store(tmp_path, registry.create("korbench", {}), "korbench", ["operation"], "zero-shot", 1, 1, {}, None)


def test_a_shared_prompt_that_is_not_json_is_a_damaged_store_on_the_compact_read(tmp_path: Path) -> None:
    st, run_id = _one_run(tmp_path)
    assert len(collect.slim_rows(st, run_id)) == 4
    st.db.execute("UPDATE prompts SET json = '{not json' WHERE rowid = (SELECT MIN(rowid) FROM prompts)")
    fresh = RunStore(st.path, readonly=True)  # a store object that has not checked this prompt yet
    with pytest.raises(StoreError, match="cannot be decoded"):
        collect.slim_rows(fresh, run_id)
    with pytest.raises(StoreError, match="cannot be decoded"):
        list(fresh.answer_texts(run_id))
    fresh.close()
    st.close()


def test_an_inline_prompt_that_is_not_json_is_a_damaged_store_on_the_compact_read(tmp_path: Path) -> None:
    st, run_id = _one_run(tmp_path)
    st.db.execute("UPDATE completions SET prompt_json = '[1,', prompt_hash = NULL "
                  "WHERE rowid = (SELECT MAX(rowid) FROM completions)")  # an old store's row holding its prompt
    with pytest.raises(StoreError, match="cannot be decoded"):
        collect.slim_rows(st, run_id)
    st.close()


def test_compact_answers_flags_follow_the_texts(tmp_path: Path) -> None:
    """``reasoned`` and ``cut`` are the core.response definitions of each stored text (as the full rows give)."""
    from reasoneval.core.response import cut_off, has_inline_reasoning

    st, run_id = _store(tmp_path, registry.create("korbench", {}), "korbench", ["operation", "cipher"], "zero-shot",
                        3, 1, {}, True)
    compact = list(st.compact_answers(run_id, "default"))
    full = list(st.answers(run_id, "default", prompts=False))
    assert len(compact) == len(full) > 10
    for a, (c, v) in zip(compact, full, strict=True):
        comp = c.completion
        assert (a.item_key, a.sample, a.turn, a.subset) == (c.item_key, c.sample, c.turn, c.subset)
        assert a.reasoned == (bool(comp.reasoning) or has_inline_reasoning(comp.text))
        assert a.cut == cut_off(comp.text, comp.finish_reason)
        assert a.verdict == v and (a.error, a.finish_reason, a.latency_s) == (comp.error, comp.finish_reason,
                                                                               comp.latency_s)
    assert {a.cut for a in compact} == {True, False} and {a.reasoned for a in compact} == {True, False}
    st.close()


@pytest.mark.parametrize("finish", ["stop", "length", None])
def test_sql_flags_are_the_python_definitions(finish: str | None) -> None:
    """``core.response.sql_*`` (what the compact read asks SQLite) against the functions every table uses, on
    texts that tell a substring test from a near miss: case, unclosed sections, GLOB's own special characters,
    newlines, non-ASCII, empty and NULL."""
    import sqlite3

    from reasoneval.core.response import cut_off, has_inline_reasoning, sql_cut_off, sql_has_inline_reasoning

    texts = [None, "", "plain", "<think>still going", "<think>done</think>[[A]]", "x</think>", "<THINK>a</THINK>",
             "<think>a</THINK>", "<think >a</think >", "*?[<think>]", "a\n<think>\nb\n</think>\nc",
             "é<think>ü</think>", "</think><think>", "<think", "<think>" * 3, "[*]</think>?"]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (text TEXT, fr TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?)", [(t, finish) for t in texts])
    got = db.execute(f"SELECT text, {sql_has_inline_reasoning('text')}, {sql_cut_off('text', 'fr')} FROM t "
                     "ORDER BY rowid").fetchall()
    assert [t for t, _, _ in got] == texts
    for t, inline, cut in got:
        assert bool(inline) == has_inline_reasoning(t or ""), t
        assert bool(cut) == cut_off(t or "", finish), t


def test_plots_drawn_aside_are_the_plots_drawn_here(tmp_path: Path) -> None:
    """``build_page(aside=True)`` (the CLI: plots drawn in a forked process while the item data is made) gives
    the same plots section as drawing them in the caller's process."""
    import re

    pytest.importorskip("matplotlib")
    st, run_id = _store(tmp_path, registry.create("korbench", {}), "korbench", ["operation", "cipher"], "zero-shot",
                        1, 1, {}, True)
    v = collect.view(st, run_id, slim=True)
    section = re.compile(r'<section id="plots">.*?</section>', re.S)
    here, _ = build_page([v], load_items=False, texts=lambda x: st.answer_texts(x.run["run_id"]))
    aside, _ = build_page([v], load_items=False, texts=lambda x: st.answer_texts(x.run["run_id"]), aside=True)
    got, want = section.search(aside), section.search(here)
    assert got is not None and want is not None and "<img" in want.group(0)
    assert got.group(0) == want.group(0)
    st.close()
