"""Paper figures drawn from stored runs (matplotlib; registered in :func:`.plots.make_plots`).

* KOR-Bench cipher sub-steps (paper Fig. 4): accuracy per sub-step type of each ``subquestions`` run, the
  paper's overall step accuracy for its four models in the caption.
* FineReason Fig. 5: Sudoku state checking against the empty cells of the state: accuracy per band of empty
  cells for each run with the 50% random baseline, and the empty-cell densities of correct and incorrect answers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from .collect import RunView
from .plots import Plot, _figure, _is_error, _png, _short, run_labels

#: paper §F.1.3: overall sub-step accuracy (%), as stated in the text
PAPER_SUBSTEP_ACCURACY = {"Claude-3.5": 40.9, "GPT-4o": 32.2, "Qwen2.5-32B": 26.7, "Mistral-7B": 9.0}


def substep_accuracy(views: Sequence[RunView]) -> dict[str, dict[str, tuple[float, int]]]:
    """run label -> sub-step type -> (accuracy %, steps), for KOR-Bench ``subquestions`` runs."""
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for v, lab in zip(views, run_labels(views), strict=True):
        if v.run.get("benchmark") != "korbench" or v.run.get("mode") != "subquestions":
            continue
        acc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in v.rows:
            t = r.final
            if _is_error(t) or t.verdict is None:
                continue
            a = acc[str(t.verdict.detail.get("type") or "(untyped)")]
            a[0] += int(t.verdict.correct)
            a[1] += 1
        if acc:
            out[lab] = {k: (100.0 * c / n, n) for k, (c, n) in acc.items()}
    return out


def substep_figure(views: Sequence[RunView]) -> Any:
    data = substep_accuracy(views)
    if not data:
        return None
    types = list(dict.fromkeys(t for d in data.values() for t in sorted(d)))
    nm = len(data)
    fig = _figure(max(5.5, min(16.0, 1.5 + 0.45 * len(types) * nm)), 3.8)
    ax = fig.subplots()
    width = 0.8 / nm
    for j, (lab, d) in enumerate(data.items()):
        xs = [i + (j - (nm - 1) / 2) * width for i in range(len(types))]
        ax.bar(xs, [d.get(t, (0.0, 0))[0] for t in types], width, label=_short(lab))
    ax.set_xticks(range(len(types)), [_short(t, 22) for t in types], rotation=30, ha="right")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title("KOR-Bench cipher sub-steps: accuracy per sub-step type")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    return fig


def plot_substeps(views: Sequence[RunView]) -> list[Plot]:
    fig = substep_figure(views)
    paper = ", ".join(f"{k} {v:.1f}%" for k, v in PAPER_SUBSTEP_ACCURACY.items())
    return [] if fig is None else [Plot(
        "korbench-substeps", "KOR-Bench cipher sub-steps: accuracy per type (paper Fig. 4)", _png(fig),
        f"Teacher-forced sub-steps of cipher rules 1, 9, 11, 18, 23; failed calls excluded. The paper's per-type "
        f"values are not in its text; its overall step accuracy: {paper}.")]


def empty_cell_points(views: Sequence[RunView]) -> dict[str, list[tuple[int, bool]]]:
    """run label -> (empty cells, correct) of its Sudoku state-checking answers (verdicts with the count)."""
    from ..benchmarks.finereason.empty_cells import points

    out = {}
    for v, lab in zip(views, run_labels(views), strict=True):
        if v.run.get("benchmark") != "finereason" or v.run.get("mode") != "state-checking":
            continue
        pts = points(r.final.verdict for r in v.rows if r.subset == "sudoku" and not _is_error(r.final))
        if pts:
            out[lab] = pts
    return out


def empty_cells_figure(views: Sequence[RunView]) -> Any:
    from ..benchmarks.finereason.empty_cells import BAND, RANDOM_SC

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


PAPER_PLOTS = (plot_substeps, plot_empty_cells)
