"""Paper tables across runs (FineReason Table 3: SC beside ST) and the mode column of merged reports."""

from __future__ import annotations

from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.types import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.paper_tables import extra_tables, finereason_table3


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
    assert by["m1"][1:] == [70.0, 20.0, 50.0, 40.0, 60.0, 30.0]
    assert by["m2"][1:] == [90.0, None, None, None, 90.0, None]
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
