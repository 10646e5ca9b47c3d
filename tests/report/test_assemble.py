"""``report.assemble``: one Report for every format; a plugin's bug is that plugin's error, not a missing run;
``--tables``; dated snapshots; ``show`` and ``correlate`` say what they match; the hint after a run whose every
answer was unextractable; display names and rounding in the cross-run tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from report_fixtures import HtmlToy, fill_store
from typer.testing import CliRunner

from reasoneval.benchmarks.korbench.paper_numbers import paper_model
from reasoneval.cli import app
from reasoneval.core.benchmark import ScoredRow, Table
from reasoneval.core.registry import register
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.assemble import Selection, SelectionError, assemble
from reasoneval.report.paper_tables import row_labels
from reasoneval.store.sqlite import RunStore


@register("buggytoy")
class BuggyToy(HtmlToy):
    """A plugin whose summary has a bug (a KeyError of its own)."""

    name = "buggytoy"

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        return [Table("t", ["a"], [[{}["missing-key"]]])]


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    st, _ = fill_store(path)
    spec = {"benchmark": "buggytoy", "mode": "zero-shot", "model": "openai/bug", "options": {}, "params": {}}
    st.upsert_run("run_bug", "buggytoy", "", "zero-shot", "openai/bug", spec)
    st.put_completion("run_bug", "alpha/1", 0, 0, "answer", "alpha", Prompt.chat("q"), "kb",
                      Completion("no answer here", "stop", Usage(5, 5), 0.1))
    st.put_verdict("run_bug", "alpha/1", 0, 0, "default", Verdict(Outcome.UNANSWERABLE, None, "brackets"))
    st.close()
    return path


def test_plugin_bug_is_its_error_not_a_missing_run(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = CliRunner().invoke(app, ["report", "run_bug", "--store", str(path)])
    assert res.exit_code == 2
    assert "benchmark 'buggytoy': the summary of run run_bug failed: KeyError: 'missing-key'" in res.output
    assert "no run matching" not in res.output and "Traceback" not in res.output
    dbg = CliRunner().invoke(app, ["report", "run_bug", "--store", str(path), "--debug"])
    assert dbg.exit_code == 2 and "Traceback" in dbg.output and "missing-key" in dbg.output
    missing = CliRunner().invoke(app, ["report", "nope", "--store", str(path)])
    assert missing.exit_code == 2 and "no run matching 'nope'" in missing.output


def test_selection_and_one_assembly(tmp_path: Path) -> None:
    path = _store(tmp_path)
    st = RunStore(path, readonly=True)
    views = [collect.view(st, r, slim=True) for r in ("run_zero_1", "run_sc_2")]
    rep = assemble(views)
    assert [rt.group for rt in rep.tables].count("main") == len(rep.tables) and not rep.left_out
    names = [rt.name for rt in rep.tables]
    assert len(names) == len(set(names))
    # each row knows its run; the label column is the display name
    for rt in rep.tables:
        for row, i in zip(rt.table.rows, rt.runs, strict=True):
            assert i is None or row[0] == rep.runs[i].name
    one = assemble(views, Selection.parse(names[0]))
    assert [rt.name for rt in one.tables] == [names[0]] and len(one.left_out) == len(names) - 1
    with pytest.raises(SelectionError, match="no table named nonsense"):
        assemble(views, Selection.parse("nonsense"))
    res = CliRunner().invoke(app, ["report", "run_zero_1", "--store", str(path), "--tables", "nonsense"])
    assert res.exit_code == 2 and "no table named nonsense" in res.output and names[0] in res.output
    # the accuracy of each run is in the JSON, exact (not a rounded string)
    js = CliRunner().invoke(app, ["report", "run_zero_1", "--store", str(path), "--json"])
    import json

    doc = json.loads(js.stdout)
    acc = doc["runs"][0]["accuracy"]
    assert isinstance(acc, float) and doc["runs"][0]["stats"]["accuracy"] == acc
    st.close()


def test_unextractable_run_shows_answers_and_the_show_command(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    st = RunStore(path)
    spec = {"benchmark": "htmltoy", "mode": "zero-shot", "model": "llamacpp/tiny", "options": {}, "params": {}}
    st.upsert_run("run_tiny", "htmltoy", "", "zero-shot", "llamacpp/tiny", spec)
    for i in range(5):
        st.put_completion("run_tiny", f"alpha/{i}", 0, 0, "answer", "alpha", Prompt.chat("q"), f"k{i}",
                          Completion(f"I like turtles {i}\x1b[31m", "stop", Usage(5, 5), 0.1))
        st.put_verdict("run_tiny", f"alpha/{i}", 0, 0, "default", Verdict(Outcome.UNANSWERABLE, None, "brackets"))
    st.close()
    res = CliRunner().invoke(app, ["report", "run_tiny", "--store", str(path)])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "every answer of run run_tiny was unextractable" in out
    assert out.count("I like turtles") == 3 and "[unanswerable, brackets]" in out and "\x1b" not in out
    assert "reasoneval show alpha/0 run_tiny" in out
    shown = CliRunner().invoke(app, ["show", "alpha/0", "run_tiny", "--store", str(path)])
    assert shown.exit_code == 0 and "I like turtles 0" in shown.stdout


def test_show_prints_mode_gold_and_question(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = CliRunner().invoke(app, ["show", "alpha/2", "run_zero_1", "run_sc_2", "--store", str(path)])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "gold: 7" in out  # both runs' verdicts say 7
    assert "question (as prompted" in out and "What is 2§3? Item alpha/2." in out
    assert "toy-model [run_zero_1] (zero-shot)" in out and "other-model [run_sc_2] (self-correction)" in out


def test_dated_snapshot_matches_only_its_own_date() -> None:
    assert paper_model("gpt-4o-2024-08-06") is None
    assert paper_model("openai/gpt-4o-2024-05-13") == "GPT-4o-2024-05-13"
    assert paper_model("gpt-4o") == "GPT-4o-2024-05-13"  # undated: the paper's row
    assert paper_model("claude-3-5-sonnet-20241022") is None
    assert paper_model("claude-3-5-sonnet-20240620") == "Claude-3.5-sonnet-20240620"


def test_cross_run_tables_use_display_names() -> None:
    class V:
        def __init__(self, run: dict[str, Any]) -> None:
            self.run = run

    runs = [V({"model": "openai-compat/Qwen2.5-7B@http://h:1/v1", "mode": "a", "spec": {}}),
            V({"model": "hf/org/x", "mode": "a", "spec": {"display_name": "My model"}})]
    assert row_labels(runs, with_mode=False) == ["Qwen2.5-7B", "My model"]  # type: ignore[arg-type]


def test_correlate_names_unmatched_models() -> None:
    from reasoneval.report.stats_tables import match_names

    got, notes = match_names({"mmlu": {"qwen2.5-7b-instruct": 70.0, "gpt4o": 80.0}},
                             {"Qwen2.5-7B-Instruct", "gpt-4o", "Llama-3.1-8B"})
    assert got == {"mmlu": {"Qwen2.5-7B-Instruct": 70.0}}
    assert notes[0] == "Not matched to any run (left out): gpt4o (close: gpt-4o)."
    assert notes[1].startswith("Runs without external scores: Llama-3.1-8B") and "gpt-4o" in notes[1]


CALLS: list[int] = []


@register("textytoy")
class TextyToy(HtmlToy):
    """A plugin whose summary reads the answers' texts, and says so."""

    name = "textytoy"
    summary_needs_texts = True

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        CALLS.append(len(rows))
        return [Table("texts", ["chars"], [[sum(len(r.final.completion.text) for r in rows)]])]


def test_a_summary_that_declares_it_reads_texts_is_called_once_with_texts(tmp_path: Path) -> None:
    from reasoneval.report.slim import SlimRow

    path = tmp_path / "runs.db"
    st = RunStore(path)
    spec = {"benchmark": "textytoy", "mode": "zero-shot", "model": "m", "options": {}, "params": {}}
    st.upsert_run("run_t", "textytoy", "", "zero-shot", "m", spec)
    st.put_completion("run_t", "alpha/1", 0, 0, "answer", "alpha", Prompt.chat("q"), "k",
                      Completion("twelve chars", "stop", Usage(5, 5), 0.1))
    st.flush()
    CALLS.clear()
    v = collect.view(st, "run_t", slim=True)
    assert CALLS == [1] and v.tables[0].rows == [[12]]
    assert not any(isinstance(r, SlimRow) for r in v.rows)
    st.close()
