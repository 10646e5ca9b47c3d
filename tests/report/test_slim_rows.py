"""The table after a run reads compact rows (``collect.slim_rows``: no prompts, no texts); every table and figure
must be the one the full rows give. Stored runs with several samples and turns, verdicts made by each benchmark's
own scorer from varied outputs (right, wrong, unextractable, cut off, failed calls, reasoning given apart or
inline, thinking times), compared as JSON between the two paths."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from reasoneval.core import registry
from reasoneval.core.benchmark import Benchmark, Table, Turn
from reasoneval.core.values import Completion, Item, Usage
from reasoneval.report import collect
from reasoneval.report.addons import addon_tables
from reasoneval.report.paper_tables import extra_tables
from reasoneval.report.slim import SlimRow, TextlessCompletion
from reasoneval.runner.session import ScoringSession
from reasoneval.store.sqlite import RunStore

FIX = Path(__file__).parents[1] / "fixtures"


def _completion(rng: random.Random, gold: str, reasoning: bool | None) -> Completion:
    """``reasoning``: True, reasoning apart with its tokens and thinking time; False, inline ``<think>`` sections
    only and nothing cut off (the reasoning tables then stand on those sections alone); None: neither."""
    kinds = ["right", "right", "wrong", "none", "error", "inline" if reasoning is not None else "cut", "cut"]
    kind = rng.choice(kinds if reasoning is not False else kinds[:-1])
    text = {"right": f"So the answer is [[{gold}]]. \\boxed{{{gold}}}", "wrong": "It is [[7]]. \\boxed{7}",
            "none": "I cannot tell.", "cut": f"Working... [[{gold}", "error": "",
            "inline": f"<think>hmm</think>[[{gold}]] \\boxed{{{gold}}}"}[kind]
    c = Completion(text, "length" if kind == "cut" else "stop",
                   Usage(rng.randint(50, 900), None if rng.random() < 0.05 else rng.randint(5, 4000)),
                   rng.random() * 3, "HTTP 500" if kind == "error" else None)
    if reasoning is True and kind != "error":
        c.reasoning = "thinking it over" if rng.random() < 0.7 else None
        c.reasoning_tokens = rng.randint(0, 3000)
        c.ttft_s = rng.random() * 2 if rng.random() < 0.8 else None
    return c


def _store(tmp: Path, bench: Benchmark, name: str, subsets: list[str], mode: str, samples: int, turns: int,
           options: dict[str, Any], reasoning: bool | None, judged: bool = False, per: int = 4) -> tuple[RunStore, str]:
    rng = random.Random(f"{name}{mode}{samples}")
    st = RunStore(tmp / f"{name}-{mode}.db")
    run_id = f"{name}-{mode}"
    spec = {"benchmark": name, "mode": mode, "model": "openai/m", "samples": samples, "options": options,
            "params": {}}
    st.upsert_run(run_id, name, "", mode, "openai/m", spec)
    items: list[tuple[str, Item]] = [(s, it) for s in subsets for it in bench.load(s, mode)[:per]]
    # stored as a concurrent run stores them: samples and turns of different items interleaved
    units = [(s, it, k) for s, it in items for k in range(samples)]
    session = ScoringSession(bench, mode)
    rng.shuffle(units)
    for t in range(turns):
        for subset, it, k in units:
            c = _completion(rng, str(it.gold), reasoning)
            if judged:
                judge = Completion(rng.choice(["Conclusion: True", "Conclusion: False", "unclear"]), "stop")
                v = session.verdict(it, c, judge)
            else:
                v = session.score(it, c)
            st.put_completion(run_id, it.key, k, t, "answer", subset, bench.prompt(it, mode), f"{it.key}{k}{t}", c)
            st.put_verdict(run_id, it.key, k, t, "default", v)
    return st, run_id


def _everything(st: RunStore, run_id: str, slim: bool) -> tuple[str, list[Any]]:
    v = collect.view(st, run_id, slim=slim)
    tables = [t.to_json() for t in [*collect.merge([v]), *extra_tables([v]), *addon_tables([v])]]
    return json.dumps({"tables": tables, "stats": v.stats}, ensure_ascii=False, default=str), v.rows


CASES = [
    ("korbench", ["operation", "cipher", "puzzle"], "zero-shot", 3, 1, {}, True, False),
    ("korbench", ["operation", "logic"], "self-correction", 2, 3, {"scoring": "corrected"}, None, False),
    ("finereason", ["sudoku", "game24"], "state-checking", 3, 1, {}, False, False),
    ("finereason", ["sudoku", "graphcoloring"], "state-transition", 2, 1, {}, True, False),
    ("general365", ["test"], "paper", 3, 1, {"data": str(FIX / "general365" / "hf")}, True, True),
]


@pytest.mark.parametrize("name, subsets, mode, samples, turns, options, reasoning, judged", CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_compact_rows_give_the_same_tables(tmp_path: Path, name: str, subsets: list[str], mode: str, samples: int,
                                           turns: int, options: dict[str, Any], reasoning: bool | None,
                                           judged: bool) -> None:
    bench = registry.create(name, options)
    st, run_id = _store(tmp_path, bench, name, subsets, mode, samples, turns, options, reasoning, judged)
    full, full_rows = _everything(st, run_id, slim=False)
    slim, slim_rows = _everything(st, run_id, slim=True)
    assert slim == full
    assert all(isinstance(r, SlimRow) for r in slim_rows) and len(slim_rows) == len(full_rows)
    # the same rows in the same order, turn by turn (the verdicts and the numbers the tables read)
    for a, b in zip(full_rows, slim_rows, strict=True):
        assert (a.item_key, a.subset, a.sample, len(a.turns)) == (b.item_key, b.subset, b.sample, len(b.turns))
        for ta, tb in zip(a.turns, b.turns, strict=True):
            ca, cb = ta.completion, tb.completion
            assert ta.verdict == tb.verdict
            assert (ca.finish_reason, ca.usage, ca.latency_s, ca.error, ca.reasoning_tokens, ca.ttft_s) == (
                cb.finish_reason, cb.usage, cb.latency_s, cb.error, cb.reasoning_tokens, cb.ttft_s)
    # what the cases are there for was compared: reasoning tables, samples, turns
    assert "Reasoning and thinking time" in full
    assert "pass@" in full and max(len(r.turns) for r in slim_rows) == turns


def test_a_compact_row_refuses_the_text_it_never_read(tmp_path: Path) -> None:
    bench = registry.create("korbench", {})
    st, run_id = _store(tmp_path, bench, "korbench", ["operation"], "self-correction", 1, 2, {}, True, per=2)
    rows = collect.slim_rows(st, run_id)
    c = rows[0].final.completion
    assert isinstance(c, TextlessCompletion)
    with pytest.raises(LookupError, match="without its text"):
        _ = c.text
    with pytest.raises(LookupError, match="without its reasoning"):
        _ = c.reasoning
    assert rows[0].final is rows[0] and len(rows[0].turns) == 2 and isinstance(rows[0].turns[0], Turn)
    assert rows[0].turns[0].prompt.messages == () and rows[0].turns[0].verdict is not None


def test_the_table_after_a_run_reads_compact_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``print_report(prompts=False)`` (what ``run`` prints) never reads full rows; ``report`` (prompts=True) does,
    and both print the same tables."""
    from reasoneval.cli.common import print_report

    bench = registry.create("korbench", {})
    st, run_id = _store(tmp_path, bench, "korbench", ["operation"], "zero-shot", 2, 1, {}, True)
    print_report(st, [run_id], True)
    full = json.loads(capsys.readouterr().out)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the table after a run read full rows")

    monkeypatch.setattr(collect, "scored_rows", refused)
    print_report(st, [run_id], True, prompts=False)
    assert json.loads(capsys.readouterr().out) == full


def test_a_summariser_that_reads_texts_gets_rows_with_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = registry.create("korbench", {})
    st, run_id = _store(tmp_path, bench, "korbench", ["operation"], "zero-shot", 2, 1, {}, None, per=3)
    cls = type(registry.for_run(st.find_runs(run_id)[0]))

    def by_text(self: Benchmark, rows: list[Any], mode: str) -> list[Table]:
        return [Table("answers with a box", ["n"], [[sum("boxed" in r.final.completion.text for r in rows)]])]

    monkeypatch.setattr(cls, "summarize", by_text)
    full = collect.view(st, run_id, slim=False)
    slim = collect.view(st, run_id, slim=True)
    assert slim.tables[0].rows == full.tables[0].rows and full.tables[0].rows[0][0] > 0
    assert not any(isinstance(r, SlimRow) for r in slim.rows) and len(slim.rows) == len(full.rows)
