"""Paper tables across runs (FineReason Table 3: SC beside ST) and the mode column of merged reports."""

from __future__ import annotations

from reasoneval.benchmarks.finereason.paper_tables import finereason_table3
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.paper_tables import extra_tables


def _rows(puzzle: str, n_ok: int, n: int, golds: list[str] | None = None) -> list[ScoredRow]:
    out = []
    for i in range(n):
        g = golds[i] if golds else "Solvable"
        v = Verdict(Outcome.CORRECT if i < n_ok else Outcome.INCORRECT, None, "m", {"gold": g})
        out.append(ScoredRow(f"{puzzle}/{i}", puzzle, 0, [Turn(Prompt.chat("q"), Completion("a", "stop", Usage(1, 1)), v)]))
    return out


def _view(model: str, mode: str, rows: list[ScoredRow], bench: str = "finereason") -> RunView:
    return RunView({"run_id": f"{model}-{mode}", "model": model, "mode": mode, "benchmark": bench, "subset": None,
                    "spec": {}}, rows, [Table("t", ["subset", "accuracy"], [["all", 1.0]])], collect.run_stats(rows))


def test_finereason_table3_sc_beside_st_with_baselines() -> None:
    golds = ["Solvable"] * 6 + ["Unsolvable"] * 4
    views = [_view("m1", "state-checking", _rows("sudoku", 7, 10, golds) + _rows("game24", 5, 10, golds)),
             _view("m1", "state-transition", _rows("sudoku", 2, 10) + _rows("game24", 4, 10)),
             _view("m2", "state-checking", _rows("sudoku", 9, 10, golds))]
    t = finereason_table3(views)
    assert t is not None
    assert t.columns == ["model", "Sudoku SC", "Sudoku ST", "Game of 24 SC", "Game of 24 ST", "Avg SC", "Avg ST"]
    by = {r[0]: r for r in t.rows}
    # the paper's averages are over the four puzzles: over two they are missing, naming the others
    assert by["m1"][1:] == [70.0, 20.0, 50.0, 40.0, "n/a (no Graph Coloring SC, Grid Puzzles SC items)",
                            "n/a (no Graph Coloring ST, Grid Puzzles ST items)"]
    assert by["m2"][1:5] == [90.0, None, None, None]
    assert by["m2"][5] == "n/a (no Graph Coloring SC, Game of 24 SC, Grid Puzzles SC items)"
    assert by["Random (uniform guess)"][1] == 50.0
    assert by["Majority class"][1] == 60.0
    # only one mode present: no side-by-side table
    assert finereason_table3(views[:1]) is None
    assert extra_tables([_view("m1", "zero-shot", _rows("a", 1, 2), bench="korbench")]) == []


def test_merged_report_tells_modes_apart() -> None:
    a = _view("m1", "zero-shot", _rows("cipher", 1, 2), bench="korbench")
    b = _view("m1", "three-shot", _rows("cipher", 2, 2), bench="korbench")
    a.run["spec"] = {"options": {}, "params": {"max_tokens": 1}}
    b.run["spec"] = {"options": {}, "params": {"max_tokens": 1}}
    (t,) = collect.merge([a, b])
    assert t.columns[:2] == ["model", "mode"]
    assert [r[:2] for r in t.rows] == [["m1", "zero-shot"], ["m1", "three-shot"]]


def test_cross_run_tables_never_pool_runs_made_differently() -> None:
    """FineReason Table 3 and General365 Table 1 keep runs apart that differ in options (or, General365, in
    mode); a second run of the same label replaces items instead of counting them twice."""
    from reasoneval.benchmarks.general365.paper_tables import general365_table1

    golds = ["Solvable"] * 10
    off = _view("m1", "state-checking", _rows("sudoku", 2, 10, golds))
    cor = _view("m1", "state-checking", _rows("sudoku", 8, 10, golds))
    st = _view("m1", "state-transition", _rows("sudoku", 5, 10))
    off.run["spec"] = {"options": {"scoring": "official"}}
    cor.run["spec"] = {"options": {"scoring": "corrected"}}
    st.run["spec"] = {"options": {"scoring": "corrected"}}
    t = finereason_table3([off, cor, st])
    assert t is not None
    by = {r[0]: r for r in t.rows}
    assert by["m1 · scoring=official"][1:3] == [20.0, None]
    assert by["m1 · scoring=corrected"][1:3] == [80.0, 50.0]
    again = finereason_table3([cor, cor, st])  # the same run twice: the same numbers, not doubled items
    assert again is not None and {r[0]: r for r in again.rows}["m1"][1:3] == [80.0, 50.0]
    assert next(r for r in again.rows if r[0] == "Majority class")[1] == 100.0

    paper = _view("openai/o4-mini", "paper", _rows("test", 3, 4), bench="general365")
    cascade = _view("openai/o4-mini", "cascade", _rows("test", 1, 4), bench="general365")
    g = general365_table1([paper, cascade])
    assert g is not None
    ours = {r[0]: r for r in g.rows if r[1] == "ours"}
    overall = g.columns.index("Overall")
    assert (ours["o4-mini · paper"][overall], ours["o4-mini · cascade"][overall]) == (75.0, 25.0)  # display names
    assert {r[1] for r in g.rows if r[0] == "o4-mini · paper"} >= {"paper: o4-mini"}  # still matched
    g2 = general365_table1([paper, paper])
    assert g2 is not None and g2.rows[0][overall] == 75.0 and g2.rows[0][g2.columns.index("n")] == 4
