"""FineReason's figures drawn from stored runs (``FineReason.figures``):

* accuracy by tree depth (from tables with ``depth`` and ``accuracy`` columns, by column id; else from verdicts
  carrying ``depth``);
* state checking: precision and recall with unsolvable as the positive class;
* Fig. 5, Sudoku state checking against the empty cells of the state: accuracy per band of empty cells for
  each run with the 50% random baseline, and the empty-cell densities of correct and incorrect answers."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...core.benchmark import Table
from ...core.table import column_id, number_of
from ...report import plot_kit as kit
from ...report.collect import RunView
from ...report.plots import Plot, _correct, _is_error, _plot, run_labels


def _norm(s: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(s).lower())


def _col(t: Table, *ids: str) -> int | None:
    """The first column of ``t`` whose id is one of ``ids`` (FineReason's tables: ``puzzle``, ``depth``, ``n``,
    ``accuracy``, ``precision``, ``recall``)."""
    return next((i for i, c in enumerate(t.columns) if column_id(c) in ids), None)


GROUP = ("puzzle", "subset")


def depth_series(views: Sequence[RunView]) -> dict[str, dict[float, tuple[float, int]]]:
    """Accuracy by tree depth, keyed ``label[ / group]``: from tables with depth and accuracy columns, else
    from rows whose verdict detail carries ``depth``."""
    labels = run_labels(views)
    series: dict[str, dict[float, tuple[float, int]]] = {}
    for v, lab in zip(views, labels, strict=True):
        got = False
        for t in v.tables:
            di, ai = _col(t, "depth"), _col(t, "accuracy")
            if di is None or ai is None:
                continue
            gi, ni = _col(t, *GROUP), _col(t, "n")
            for r in t.rows:
                d, a = number_of(r[di]), number_of(r[ai])
                if d is None or a is None:
                    continue
                key = lab if gi is None else f"{lab} / {r[gi]}"
                n = int(number_of(r[ni]) or 0) if ni is not None else 0
                series.setdefault(key, {})[d] = (a, n)
                got = True
        if got:
            continue
        acc: dict[tuple[str, float], list[int]] = defaultdict(lambda: [0, 0])
        for row in v.rows:
            vd = row.final.verdict
            d = number_of(vd.detail.get("depth")) if vd is not None else None
            if d is None or _is_error(row.final):
                continue
            s = acc[(row.subset, d)]
            s[0] += _correct(row.final)
            s[1] += 1
        subsets = {k[0] for k in acc}
        for (sub, d), (ok, n) in acc.items():
            key = lab if len(subsets) == 1 else f"{lab} / {sub}"
            series.setdefault(key, {})[d] = (100.0 * ok / n, n)
    return series


_POS = {"unsolvable", "uncolorable"}
_NEG = {"solvable", "colorable"}


def _label(x: Any) -> bool | None:
    """True for the positive class (unsolvable), False for solvable, None when unknown."""
    if x is None:
        return None
    s = _norm(x)
    if s in _POS:
        return True
    if s in _NEG:
        return False
    return None


def precision_recall(views: Sequence[RunView]) -> list[tuple[str, str, float, float]]:
    """(run label, group, precision, recall) with unsolvable as the positive class.

    From tables with precision and recall columns, else from rows whose verdict detail has a solvable /
    unsolvable ``gold`` and whose extracted answer is a label.
    """
    labels = run_labels(views)
    out: list[tuple[str, str, float, float]] = []
    for v, lab in zip(views, labels, strict=True):
        got = False
        for t in v.tables:
            pi, ri = _col(t, "precision"), _col(t, "recall")
            if pi is None or ri is None:
                continue
            gi = _col(t, *GROUP)
            for r in t.rows:
                p, rc = number_of(r[pi]), number_of(r[ri])
                if p is None or rc is None:
                    continue
                out.append((lab, str(r[gi]) if gi is not None else t.title, p, rc))
                got = True
        if got:
            continue
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tp, fp, fn
        for row in v.rows:
            vd = row.final.verdict
            if vd is None or _is_error(row.final):
                continue
            gold = _label(vd.detail.get("gold"))
            if gold is None:
                continue
            pred = _label(vd.extracted)
            c = counts[row.subset]
            if pred and gold:
                c[0] += 1
            elif pred and not gold:
                c[1] += 1
            elif gold:
                c[2] += 1
        for sub in sorted(counts):
            tp, fp, fn = counts[sub]
            if tp + fp + fn == 0:
                continue
            p = 100.0 * tp / (tp + fp) if tp + fp else 0.0
            rc = 100.0 * tp / (tp + fn) if tp + fn else 0.0
            out.append((lab, sub, p, rc))
    return out


def depth_figure(views: Sequence[RunView]) -> Any:
    """Depths are whole numbers: the ticks are exactly the depths present (a single depth included). Lines
    up to :data:`plot_kit.MAX_LINES` series, else heat maps (one panel per puzzle) of run x depth."""
    series = depth_series(views)
    if not series:
        return None
    if len(series) <= kit.MAX_LINES:
        return kit.series_figure("Accuracy by tree depth", {k: {d: a for d, (a, _) in p.items()}
                                                            for k, p in series.items()}, "tree depth",
                                 "accuracy (%)")
    groups: dict[str, dict[str, dict[float, tuple[float, int]]]] = defaultdict(dict)
    for key, pts in series.items():
        lab, sep, group = key.rpartition(" / ")
        groups[group if sep else ""][lab if sep else key] = pts
    rows = list(dict.fromkeys(r for g in groups.values() for r in g))
    rows.sort(key=lambda r: -sum(a for g in groups.values() for a, _ in g.get(r, {}).values()))
    panels = []
    for gname, g in groups.items():
        depths = sorted({d for pts in g.values() for d in pts})
        vals = [[g[r][d][0] if r in g and d in g[r] else None for d in depths] for r in rows]
        panels.append((gname or "depth", [f"{d:g}" for d in depths], vals))
    return kit.heatmap_panels("Accuracy by tree depth (columns: depth)", rows, panels)


def plot_depth(views: Sequence[RunView]) -> list[Plot]:
    fig = depth_figure(views)
    return [] if fig is None else [_plot("depth", "FineReason: accuracy by tree depth", fig)]


def plot_precision_recall(views: Sequence[RunView]) -> list[Plot]:
    pr = precision_recall(views)
    if not pr:
        return []
    runs = list(dict.fromkeys(lab for lab, _, _, _ in pr))
    groups = list(dict.fromkeys(g for _, g, _, _ in pr))
    got = {(lab, g): (p, r) for lab, g, p, r in pr}
    mean = {lab: sum(p + r for la, _, p, r in pr if la == lab) / sum(2 for la, *_ in pr if la == lab) for lab in runs}
    runs.sort(key=lambda lab: -mean[lab])  # best first, as every other run x column plot
    panels = [(g, ["precision", "recall"], [[got[(lab, g)][k] if (lab, g) in got else None for k in (0, 1)]
                                             for lab in runs]) for g in groups]
    fig = kit.heatmap_panels("State checking: precision / recall (positive = unsolvable)", runs, panels,
                             cbar_label="%")
    return [_plot("state-checking-pr", "FineReason state checking: precision and recall", fig)]


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


def finereason_figures(views: Sequence[RunView]) -> list[Plot]:
    return [*plot_depth(views), *plot_precision_recall(views), *plot_empty_cells(views)]
