"""Paper figures from stored runs: KOR-Bench cipher sub-step accuracy per type; FineReason Fig. 5."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.finereason.figures import (
    empty_cell_points,
    empty_cells_density_figure,
    empty_cells_figure,
)
from reasoneval.benchmarks.korbench.figures import substep_accuracy, substep_figure
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.plots import make_plots


def _row(key: str, subset: str, ok: bool, detail: dict[str, object], error: bool = False) -> ScoredRow:
    c = Completion("", "stop", Usage(1, 1), error="HTTP 500" if error else None)
    v = Verdict(Outcome.ERROR if error else Outcome.CORRECT if ok else Outcome.INCORRECT, "x", "m", detail)
    return ScoredRow(key, subset, 0, [Turn(Prompt.chat("q"), c, v)])


def _view(model: str, bench: str, mode: str, rows: list[ScoredRow]) -> RunView:
    return RunView({"run_id": model + mode, "model": model, "mode": mode, "benchmark": bench, "subset": None,
                    "spec": {}}, rows, [Table("t", ["a"], [])], collect.run_stats(rows))


def _substeps() -> RunView:
    rows = [_row(f"s/{i}", "cipher-subquestions", i % 2 == 0, {"type": "encrypt"}) for i in range(4)]
    rows += [_row(f"t/{i}", "cipher-subquestions", True, {"type": "lookup"}) for i in range(3)]
    rows.append(_row("u/0", "cipher-subquestions", False, {"type": "lookup"}, error=True))
    return _view("m1", "korbench", "subquestions", rows)


def _sudoku() -> RunView:
    rows = [_row(f"sudoku/{i}", "sudoku", e < 20, {"empty_cells": e}) for i, e in enumerate([5, 12, 18, 25, 33, 41])]
    rows.append(_row("game24/0", "game24", True, {}))
    return _view("m1", "finereason", "state-checking", rows)


def test_substep_accuracy_per_type() -> None:
    data = substep_accuracy([_substeps(), _view("m2", "korbench", "zero-shot", [])])
    assert data == {"m1": {"encrypt": (50.0, 4), "lookup": (100.0, 3)}}  # the failed call left out


def test_empty_cell_points_only_sudoku_state_checking() -> None:
    pts = empty_cell_points([_sudoku(), _substeps()])
    assert pts == {"m1": [(5, True), (12, True), (18, True), (25, False), (33, False), (41, False)]}


def test_figures_drawn_and_in_the_report() -> None:
    pytest.importorskip("matplotlib")
    fig = substep_figure([_substeps()])
    # one panel per sub-step type, a bar per run
    assert [ax.get_title() for ax in fig.axes] == ["encrypt", "lookup"]
    assert [round(ax.patches[0].get_width(), 1) for ax in fig.axes] == [50.0, 100.0]
    fig5 = empty_cells_figure([_sudoku()])
    (line, rnd) = fig5.axes[0].get_lines()
    assert list(line.get_ydata()) == [100.0, 100.0, 0.0, 0.0, 0.0] and list(rnd.get_ydata()) == [50.0, 50.0]
    dens = empty_cells_density_figure([_sudoku()])
    assert len(dens.axes[0].patches) == 2  # correct and incorrect densities
    plots, notes = make_plots([_substeps(), _sudoku()])
    keys = [p.key for p in plots]
    assert "korbench-substeps" in keys and "finereason-empty-cells" in keys and not notes
    assert "finereason-empty-cells-density" in keys
    assert substep_figure([_sudoku()]) is None and empty_cells_figure([_substeps()]) is None
