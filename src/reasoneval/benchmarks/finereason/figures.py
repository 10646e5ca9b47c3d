"""FineReason's paper figure drawn from stored runs (``FineReason.figures``): Fig. 5, Sudoku state checking
against the empty cells of the state: accuracy per band of empty cells for each run with the 50% random
baseline, and the empty-cell densities of correct and incorrect answers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...report.collect import RunView
from ...report.plots import Plot, _figure, _is_error, _png, _short, run_labels


def empty_cell_points(views: Sequence[RunView]) -> dict[str, list[tuple[int, bool]]]:
    """run label -> (empty cells, correct) of its Sudoku state-checking answers (verdicts with the count)."""
    from .empty_cells import points

    out = {}
    for v, lab in zip(views, run_labels(views), strict=True):
        if v.run.get("benchmark") != "finereason" or v.run.get("mode") != "state-checking":
            continue
        pts = points(r.final.verdict for r in v.rows if r.subset == "sudoku" and not _is_error(r.final))
        if pts:
            out[lab] = pts
    return out


def empty_cells_figure(views: Sequence[RunView]) -> Any:
    from .empty_cells import BAND, RANDOM_SC

    data = empty_cell_points(views)
    if not data:
        return None
    fig = _figure(9.0, 3.8)
    ax1, ax2 = fig.subplots(1, 2)
    for n, (lab, pts) in enumerate(data.items(), 1):
        by: dict[int, list[bool]] = defaultdict(list)
        for e, ok in pts:
            by[e // BAND].append(ok)
        xs = sorted(by)
        ax1.plot([b * BAND + BAND / 2 for b in xs], [100.0 * sum(by[b]) / len(by[b]) for b in xs], marker="o",
                 label=f"{n}  {_short(lab, 36)}")
        if n <= 3:  # densities of the first runs only, to stay readable
            bins = list(range(0, 82, 4))
            for ok, style in ((True, "-"), (False, "--")):
                es = [e for e, c in pts if c is ok]
                if es:
                    ax2.hist(es, bins=bins, density=True, histtype="step", linestyle=style,
                             label=f"{n} {'correct' if ok else 'incorrect'}")
    ax1.axhline(RANDOM_SC, color="0.5", linestyle=":", label="random (50%)")
    ax1.set_xlabel("empty cells of the state")
    ax1.set_ylabel("accuracy (%)")
    ax1.set_ylim(0, 100)
    ax1.set_title("Sudoku state checking by empty cells")
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=7)
    ax2.set_xlabel("empty cells of the state")
    ax2.set_ylabel("density")
    ax2.set_title("empty cells: correct vs incorrect")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=7)
    return fig


def plot_empty_cells(views: Sequence[RunView]) -> list[Plot]:
    fig = empty_cells_figure(views)
    return [] if fig is None else [Plot(
        "finereason-empty-cells", "FineReason Sudoku state checking by empty cells (paper Fig. 5)", _png(fig),
        "Left: accuracy per band of 10 empty cells, the dotted line a uniform Solvable/Unsolvable guess. Right: "
        "empty-cell densities of correct (solid) and incorrect (dashed) answers, as the paper's Fig. 5.")]
