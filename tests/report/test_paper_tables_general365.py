"""General365 Table 1 wide beside the paper (across runs) and the category distribution of `stats general365`."""

from __future__ import annotations

from pathlib import Path

from reasoneval.benchmarks.general365.dataset_stats import category_tables
from reasoneval.benchmarks.general365.paper_numbers import GENERAL365_TABLE1, general365_model
from reasoneval.benchmarks.general365.paper_tables import general365_table1
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.dataset_stats import dataset_tables
from reasoneval.report.paper_tables import extra_tables

FIXTURES = Path(__file__).parent.parent / "fixtures" / "general365"


def _row(i: int, cats: list[str], ok: bool, error: bool = False) -> ScoredRow:
    meta = {"answer_type": "number", "categories": cats, "seed_id": str(i), "is_seed": True}
    if error:
        c, v = Completion("", "stop", Usage(1, 1), error="HTTP 500"), Verdict(Outcome.ERROR, None, "error", meta)
    else:
        c = Completion("x", "stop", Usage(1, 1))
        v = Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, "1", "rule", meta)
    return ScoredRow(f"test/{i}", "test", 0, [Turn(Prompt.chat("q"), c, v)])


def _view(model: str, rows: list[ScoredRow]) -> RunView:
    return RunView({"run_id": model, "model": model, "mode": "paper", "benchmark": "general365", "subset": None,
                    "spec": {}}, rows, [Table("t", ["a"], [])], collect.run_stats(rows))


def test_published_table1_and_names() -> None:
    assert len(GENERAL365_TABLE1) == 26
    assert GENERAL365_TABLE1["Gemini-3-Pro"]["Implicit Information"] == 68.8
    assert GENERAL365_TABLE1["DeepSeek-V3.2-Chat"]["Overall"] == 37.6
    assert general365_model("openai/o4-mini") == "o4-mini"
    assert general365_model("anthropic/claude-sonnet-4-5") == "Claude-Sonnet-4.5"
    assert general365_model("llamacpp/default") is None


def test_table1_wide_ours_paper_delta() -> None:
    rows = [_row(0, ["Complex Constraints", "Optimal Strategy"], True), _row(1, ["Complex Constraints"], False),
            _row(2, ["probability and uncertainty"], True), _row(3, ["Optimal Strategy"], True, error=True)]
    t = general365_table1([_view("openai/o4-mini", rows), _view("mine", rows[:2])])
    assert t is not None
    assert t.columns[:3] == ["model", "row", "Complex Constraints"] and t.columns[-3:] == ["Overall", "n",
                                                                                          "Overall 95% CI"]
    by = {(r[0], r[1]): dict(zip(t.columns, r, strict=True)) for r in t.rows}
    ours = by[("o4-mini", "ours")]  # rows labelled by the display name
    assert (ours["Complex Constraints"], ours["Optimal Strategy"], ours["Probability & Uncertainty"]) == (50.0, 100.0,
                                                                                                       100.0)
    assert ours["Spatial & Temporal"] is None and ours["Overall"] == 66.67 and ours["n"] == 3  # the error left out
    assert by[("o4-mini", "paper: o4-mini")]["Overall"] == 51.0
    assert by[("o4-mini", "Δ ours − paper")]["Overall"] == 15.67  # 66.67 - 51.0, rounded as every table rounds
    assert by[("o4-mini", "Δ ours − paper")]["Spatial & Temporal"] is None
    assert [k for k in by if k[0] == "mine"] == [("mine", "ours")]
    assert "General365 Table 1 layout" in [x.title for x in extra_tables([_view("m", rows)])][0]


def test_table1_without_labels_fills_overall_only() -> None:
    rows = [_row(0, [], True), _row(1, [], False)]
    t = general365_table1([_view("m", rows)])
    assert t is not None and t.rows[0][2:10] == [None] * 8 and t.rows[0][10] == 50.0
    assert any("only Overall" in n for n in t.notes)


def test_category_distribution_beside_the_paper() -> None:
    metas = [{"categories": ["Optimal Strategy", "Complex Constraints"], "is_seed": True, "answer_type": "interval"},
             {"categories": ["Optimal Strategy"], "is_seed": False}, {"categories": ["Zeta"], "is_seed": True,
                                                                      "answer_type": "text"}]
    dist, labels, types = category_tables(metas)
    by = {r[0]: r for r in dist.rows}
    assert list(by)[:8] == ["Complex Constraints", "Branching & Enumeration", "Spatial & Temporal",
                            "Recursive & Backtracking", "Semantic Interference", "Implicit Information",
                            "Optimal Strategy", "Probability & Uncertainty"]
    assert by["Optimal Strategy"] == ["Optimal Strategy", 2, 66.67, 1, 120, 30, None]
    assert by["Complex Constraints"][4:] == [None, None, 200] and by["Zeta"][1] == 1
    assert labels.rows == [[1, 1, 50.0], [2, 1, 50.0]]
    assert types.rows == [["numerical", 1, 238], ["select", 0, 46], ["text", 1, 81]]


def test_stats_general365_on_a_labelled_file() -> None:
    titles = [t.title for t in dataset_tables("general365", str(FIXTURES / "own.jsonl"))]
    assert "General365 category distribution (Fig. 3a) beside the paper" in titles
    assert "general365: category distribution" not in titles
    assert "General365 labels per seed (Fig. 3b)" in titles
