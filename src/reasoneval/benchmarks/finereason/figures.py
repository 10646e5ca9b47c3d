"""FineReason's paper figure drawn from stored runs (``FineReason.figures``): Fig. 5, Sudoku state checking
against the empty cells of the state: accuracy per band of empty cells for each run with the 50% random
baseline, and the empty-cell densities of correct and incorrect answers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...report import plot_kit as kit
from ...report.collect import RunView
from ...report.plots import Plot, _is_error, _plot, run_labels


def empty_cell_points(views: Sequence[RunView]) -> dict[str, list[tuple[int, bool]]]:
    """run label -> (empty cells, correct) of its Sudoku state-checking answers (verdicts with the count)."""
    from .empty_cells import points

    out = {}
    sc = [v for v in views if v.run.get("benchmark") == "finereason" and v.run.get("mode") == "state-checking"]
    for v, lab in zip(sc, run_labels(sc), strict=True):
        pts = points(r.final.verdict for r in v.rows if r.subset == "sudoku" and not _is_error(r.final))
        if pts:
            out[lab] = pts
    return out


def empty_cells_figure(views: Sequence[RunView]) -> Any:
    """Accuracy per band of empty cells (mid-band on the x axis): lines with the random baseline, or a heat
    map past :data:`plot_kit.MAX_LINES` runs."""
    from .empty_cells import BAND, RANDOM_SC

    data = empty_cell_points(views)
    if not data:
        return None
    series = {}
    for lab, pts in data.items():
        by: dict[int, list[bool]] = defaultdict(list)
        for e, ok in pts:
            by[e // BAND].append(ok)
        series[lab] = {float(b * BAND + BAND / 2): 100.0 * sum(by[b]) / len(by[b]) for b in sorted(by)}
    return kit.series_figure("Sudoku state checking by empty cells", series, "empty cells of the state (band middle)",
                             "accuracy (%)", baseline=(RANDOM_SC, "random (50%)"))


def empty_cells_density_figure(views: Sequence[RunView]) -> Any:
    """Densities of empty cells for correct (solid) and incorrect (dashed) answers: per run up to three runs,
    else all runs pooled (two lines)."""
    data = empty_cell_points(views)
    if not data:
        return None
    fig = kit.figure(kit.WIDTH_IN, kit.MIN_AXES_IN + 1.6)
    ax = fig.subplots()
    bins = list(range(0, 82, 4))
    groups = list(data.items()) if len(data) <= 3 else [(f"all {len(data)} runs", [p for v in data.values()
                                                                                   for p in v])]
    for n, (lab, pts) in enumerate(groups):
        for ok, ls in ((True, "-"), (False, "--")):
            es = [e for e, c in pts if c is ok]
            if es:
                ax.hist(es, bins=bins, density=True, histtype="step", linestyle=ls, color=f"C{n}",
                        label=f"{kit.short(lab, 36)}: {'correct' if ok else 'incorrect'}")
    ax.set_xlabel("empty cells of the state")
    ax.set_ylabel("density")
    ax.set_title("Empty cells: correct vs incorrect answers")
    ax.grid(alpha=0.3)
    kit.legend_outside(fig, ax)
    return fig


def plot_empty_cells(views: Sequence[RunView]) -> list[Plot]:
    fig = empty_cells_figure(views)
    if fig is None:
        return []
    return [_plot("finereason-empty-cells", "FineReason Sudoku state checking by empty cells (paper Fig. 5)", fig,
                  "Accuracy per band of 10 empty cells; the dotted line (or the caption, for a heat map) is a "
                  "uniform Solvable/Unsolvable guess, 50%."),
            _plot("finereason-empty-cells-density", "FineReason Sudoku: empty cells of correct and incorrect answers",
                  empty_cells_density_figure(views),
                  "Empty-cell densities of correct (solid) and incorrect (dashed) answers, as the paper's Fig. 5; "
                  "past three runs, all runs pooled.")]
