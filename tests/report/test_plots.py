"""Plot data (no matplotlib needed) and the rendered plots (skipped without matplotlib)."""

from __future__ import annotations

import base64

import pytest
from report_fixtures import korbench_view

from reasoneval.benchmarks.finereason import figures as fr_figures
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect, plots
from reasoneval.report.collect import RunView


def row(key: str, outcomes: list[Outcome], detail: dict | None = None, extracted: str | None = None) -> ScoredRow:
    return ScoredRow(key, key.split("/")[0], 0, [
        Turn(Prompt.chat("q"), Completion("a", "stop", Usage(5, 7)), Verdict(o, extracted, "m", detail or {}))
        for o in outcomes])


def view(rows: list[ScoredRow], tables: list[Table] | None = None, model: str = "m", bench: str = "finereason",
         mode: str = "state-checking") -> RunView:
    run = {"run_id": f"id-{model}", "model": model, "benchmark": bench, "mode": mode}
    return RunView(run, rows, tables or [], collect.run_stats(rows))


C, W = Outcome.CORRECT, Outcome.INCORRECT


def test_accuracy_by_round(toy_views: list[RunView]) -> None:
    sc = toy_views[1]
    assert [round(a) for a, _ in plots.accuracy_by_round(sc.rows)] == [30, 60, 80]
    assert plots.accuracy_by_round(toy_views[0].rows) == []  # single-turn run: no rounds


def test_run_labels_disambiguate() -> None:
    vs = [view([], model="a", mode="x"), view([], model="a", mode="y"), view([], model="b")]
    assert plots.run_labels(vs) == ["a (x)", "a (y)", "b"]
    vs = [view([], model="a"), view([], model="a")]
    assert len(set(plots.run_labels(vs))) == 2


def test_depth_series_from_rows_and_tables() -> None:
    rows = [row("sudoku/1", [C], {"depth": 1}), row("sudoku/2", [W], {"depth": 1}), row("sudoku/3", [C], {"depth": 2})]
    assert fr_figures.depth_series([view(rows)]) == {"m": {1.0: (50.0, 2), 2.0: (100.0, 1)}}
    t = Table("FineReason accuracy by depth", ["puzzle", "depth", "n", "accuracy"],
              [["sudoku", 1, 10, 70.0], ["sudoku", 2, 10, 40.0], ["game24", 1, 5, 80.0]])
    got = fr_figures.depth_series([view([], [t])])
    assert got == {"m / sudoku": {1.0: (70.0, 10), 2.0: (40.0, 10)}, "m / game24": {1.0: (80.0, 5)}}
    assert fr_figures.depth_series([korbench_view()]) == {}  # absent data: nothing


def test_precision_recall_from_rows_and_tables() -> None:
    rows = [row("sudoku/1", [C], {"gold": "Unsolvable"}, "unsolvable"),
            row("sudoku/2", [W], {"gold": "Solvable"}, "Unsolvable"),
            row("sudoku/3", [W], {"gold": "Unsolvable"}, "solvable"),
            row("sudoku/4", [C], {"gold": "solvable"}, "solvable")]
    assert fr_figures.precision_recall([view(rows)]) == [("m", "sudoku", 50.0, 50.0)]
    t = Table("state checking", ["puzzle", "precision", "recall", "f1"], [["grid", 60.0, 30.0, 40.0]])
    assert fr_figures.precision_recall([view([], [t])]) == [("m", "grid", 60.0, 30.0)]
    assert fr_figures.precision_recall([korbench_view()]) == []


def test_make_plots(all_views: list[RunView]) -> None:
    pytest.importorskip("matplotlib")
    got, notes = plots.make_plots(all_views)
    assert notes == []
    keys = [p.key for p in got]
    assert keys == ["categories-htmltoy-zero-shot", "heatmap-htmltoy-zero-shot", "categories-htmltoy-self-correction",
                    "categories-korbench", "heatmap-korbench", "acc-vs-tokens-htmltoy-zero-shot",
                    "acc-vs-tokens-htmltoy-self-correction", "acc-vs-tokens-korbench"]
    for p in got:
        assert base64.b64decode(p.png_b64).startswith(b"\x89PNG")
        assert p.layout is not None and p.layout["axes"]
    fr = [row("sudoku/1", [C], {"depth": 1, "gold": "unsolvable"}, "unsolvable"),
          row("sudoku/2", [W], {"depth": 3, "gold": "solvable"}, "unsolvable")]
    keys = [p.key for p in plots.make_plots([view(fr, model="fr$model$")])[0]]
    assert "depth" in keys and "state-checking-pr" in keys
    # the self-correction plot is KOR-Bench's (``Benchmark.figures``): a multi-turn run of another benchmark has none
    sc = [row("operation/1", [W, C]), row("operation/2", [W, W]), row("logic/3", [C])]
    keys = [p.key for p in plots.make_plots([view(sc, bench="korbench", mode="self-correction")])[0]]
    assert "self-correction" in keys


def test_make_plots_without_matplotlib(all_views: list[RunView], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    got, notes = plots.make_plots(all_views)
    assert got == [] and "matplotlib is not installed" in notes[0]


def test_run_labels_per_benchmark() -> None:
    vs = [view([], model="a", bench="x"), view([], model="a", bench="y")]
    assert plots.run_labels(vs) == ["a", "a"]  # different leaderboards: no need to disambiguate
