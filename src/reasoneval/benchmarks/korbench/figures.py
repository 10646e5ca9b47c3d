"""KOR-Bench's paper figures drawn from stored runs (``KorBench.figures``), each readable from 1 to 60+ runs
(runs are labelled rows, never a colour to look up; see :mod:`reasoneval.report.plot_kit`).

* Self-correction (paper §4.5): accuracy after each round of the self-correction runs, rounds numbered as the
  self-correction table numbers them.

* Cipher sub-steps (paper Fig. 4): accuracy per sub-step type of each ``subquestions`` run (small multiples of
  sorted bars with 95% whiskers; a heat map past ``plot_kit.MAX_PANELS`` types), the paper's overall step
  accuracy for its four models in the caption.
* Real-life answers (paper Figs. 6/7): the counterfactual real-life answer rate against counterfactual
  accuracy, the paper's Table 2 models in grey behind ours.
* Trick vs no trick (paper §4, puzzle): each model's puzzle accuracy with the trick hint beside its zero-shot
  puzzle accuracy, one row per model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...report import plot_kit as kit
from ...report.collect import RunView
from ...report.labels import labels_of_runs
from ...report.plots import Plot, _cell, _correct, _is_error, _plot, accuracy_by_round, run_labels
from . import paper_numbers as pn

#: paper §F.1.3: overall sub-step accuracy (%), as stated in the text
PAPER_SUBSTEP_ACCURACY = {"Claude-3.5": 40.9, "GPT-4o": 32.2, "Qwen2.5-32B": 26.7, "Mistral-7B": 9.0}


def substep_accuracy(views: Sequence[RunView]) -> dict[str, dict[str, tuple[float, int]]]:
    """run label -> sub-step type -> (accuracy %, steps), for KOR-Bench ``subquestions`` runs."""
    return {lab: {t: (c[0], c[2]) for t, c in d.items()} for lab, d in _substep_cells(views).items()}


def _substep_cells(views: Sequence[RunView]) -> dict[str, dict[str, tuple[float, int, int]]]:
    out: dict[str, dict[str, tuple[float, int, int]]] = {}
    sub = [v for v in views if v.run.get("benchmark") == "korbench" and v.run.get("mode") == "subquestions"]
    for v, lab in zip(sub, run_labels(sub), strict=True):
        acc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in v.rows:
            t = r.final
            if _is_error(t) or t.verdict is None:
                continue
            a = acc[str(t.verdict.detail.get("type") or "(untyped)")]
            a[0] += int(t.verdict.correct)
            a[1] += 1
        if acc:
            out[lab] = {k: (100.0 * c / n, c, n) for k, (c, n) in acc.items()}
    return out


def substep_figure(views: Sequence[RunView]) -> Any:
    data = _substep_cells(views)
    if not data:
        return None
    types = sorted({t for d in data.values() for t in d})

    def overall(d: dict[str, tuple[float, int, int]]) -> float:
        n = sum(c[2] for c in d.values())
        return sum(c[1] for c in d.values()) / n if n else 0.0

    rows = sorted(data, key=lambda lab: -overall(data[lab]))
    title = "KOR-Bench cipher sub-steps: accuracy per sub-step type"
    if len(types) <= kit.MAX_PANELS:
        return kit.hbar_panels(title, rows, [(t, [data[r].get(t) for r in rows]) for t in types])
    return kit.heatmap_panels(title, rows, [("", types, [[data[r][t][0] if t in data[r] else None for t in types]
                                                         for r in rows])])


def plot_substeps(views: Sequence[RunView]) -> list[Plot]:
    fig = substep_figure(views)
    paper = ", ".join(f"{k} {v:.1f}%" for k, v in PAPER_SUBSTEP_ACCURACY.items())
    return [] if fig is None else [_plot(
        "korbench-substeps", "KOR-Bench cipher sub-steps: accuracy per type (paper Fig. 4)", fig,
        f"Teacher-forced sub-steps of cipher rules 1, 9, 11, 18, 23; failed calls excluded; whiskers: 95% Wilson "
        f"interval. The paper's per-type values are not in its text; its overall step accuracy: {paper}.")]


def trick_pairs(views: Sequence[RunView]) -> list[tuple[str, kit.Cell, kit.Cell]]:
    """(model label, zero-shot puzzle cell, trick puzzle cell) per KOR-Bench ``trick`` run; the zero-shot run is
    the one of the same display name and options (None when there is none)."""
    from ...report.labels import display_name

    kor = [v for v in views if v.run.get("benchmark") == "korbench"]
    tricks = [v for v in kor if v.run.get("mode") == "trick"]
    labels = labels_of_runs([v.run for v in tricks])

    def opts(v: RunView) -> Any:
        return (v.run.get("spec") or {}).get("options") or {}

    out: list[tuple[str, kit.Cell, kit.Cell]] = []
    for v, lab in zip(tricks, labels, strict=True):
        cell = _cell(r for r in v.rows if r.subset == "puzzle")
        if cell is None:
            continue
        same = [z for z in kor if z.run.get("mode") == "zero-shot" and display_name(z.run) == display_name(v.run)]
        same.sort(key=lambda z: opts(z) != opts(v))  # the same options first
        base = next((c for z in same if (c := _cell(r for r in z.rows if r.subset == "puzzle")) is not None), None)
        out.append((lab, base, cell))
    return out


def trick_figure(views: Sequence[RunView]) -> Any:
    """One row per model, sorted by the trick accuracy: zero-shot (grey circle) and trick (diamond) puzzle
    accuracy joined by a line, 95% whiskers."""
    pairs = trick_pairs(views)
    if not pairs:
        return None
    pairs.sort(key=lambda p: -(p[2][0] if p[2] else 0.0))
    n = len(pairs)
    fig = kit.figure(kit.WIDTH_IN, kit.rows_height(n, 1.6))
    ax = fig.subplots()
    ys = list(range(n))
    for y, (_, base, trick) in zip(ys, pairs, strict=True):
        if base and trick:
            ax.plot([base[0], trick[0]], [y, y], color="0.6", linewidth=1, zorder=1)
    for k, (name, colour, marker) in enumerate((("zero-shot (no trick)", "0.45", "o"), ("trick", "C1", "D"))):
        sel = [(y, c) for y, p in zip(ys, pairs, strict=True) if (c := (p[1], p[2])[k]) is not None]
        if not sel:
            continue
        xs = [c[0] for _, c in sel]
        err = [[max(0.0, c[0] - kit.wilson(c[1], c[2])[0]) for _, c in sel],
               [max(0.0, kit.wilson(c[1], c[2])[1] - c[0]) for _, c in sel]]
        ax.errorbar(xs, [y for y, _ in sel], xerr=err, fmt=marker, color=colour, ecolor=colour, elinewidth=0.8,
                    capsize=1.5, markersize=5, label=name, zorder=2)
    ax.set_yticks(ys, kit.fit_labels([p[0] for p in pairs]), fontsize=7)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, 100)
    ax.set_xlabel("puzzle accuracy (%)")
    ax.set_title("KOR-Bench puzzle: trick hint against no trick")
    ax.grid(axis="x", alpha=0.3)
    kit.legend_outside(fig, ax)
    return fig


def plot_trick(views: Sequence[RunView]) -> list[Plot]:
    fig = trick_figure(views)
    return [] if fig is None else [_plot(
        "korbench-trick", "KOR-Bench puzzle: trick vs no trick", fig,
        "Puzzle accuracy with the trick hint (diamond) and of the same model's zero-shot run (circle), failed "
        "calls excluded; whiskers: 95% Wilson interval.")]


def real_life_points(views: Sequence[RunView]) -> list[tuple[str, float, float, int]]:
    """(run label, counterfactual accuracy, real-life answer rate, items) for KOR-Bench runs whose
    counterfactual verdicts carry ``real_life`` (percentages; failed calls excluded)."""
    out = []
    got = [(v, rows) for v in views if (rows := [
        r for r in v.rows if r.subset == "counterfactual" and not _is_error(r.final)
        and r.final.verdict is not None and "real_life" in r.final.verdict.detail])]
    for (_, rows), lab in zip(got, run_labels([v for v, _ in got]), strict=True):
        if rows:
            n = len(rows)
            acc = 100.0 * sum(_correct(r.final) for r in rows) / n
            rl = 100.0 * sum(bool(r.final.verdict.detail["real_life"]) for r in rows if r.final.verdict) / n
            out.append((lab, acc, rl, n))
    return out


def real_life_figure(views: Sequence[RunView]) -> Any:
    """KOR-Bench Figs. 6/7: real-life answer rate against counterfactual accuracy, the paper's models (Table 2,
    chat and base) in grey behind ours; our runs numbered, keyed beside the axes."""
    ours = real_life_points(views)
    if not ours:
        return None
    fig = kit.figure(kit.WIDTH_IN, kit.key_height(len(ours)))
    ax = fig.subplots()
    for table, marker, name in ((pn.KORBENCH_TABLE2_CHAT, "o", "paper: chat (zero-shot)"),
                                (pn.KORBENCH_TABLE2_BASE, "s", "paper: base (three-shot)")):
        ax.scatter([r["Counterfactual"] for r in table.values()], [r["Counterfactual RL"] for r in table.values()],
                   marker=marker, color="0.75", s=18, label=name)
    ax.scatter([a for _, a, _, _ in ours], [r for _, _, r, _ in ours], s=36, color="C3", zorder=3,
               label="our runs (numbered)")
    ymax = max(max(r for _, _, r, _ in ours), *(r["Counterfactual RL"] for t in (pn.KORBENCH_TABLE2_CHAT,
                                                                               pn.KORBENCH_TABLE2_BASE)
                                                for r in t.values())) * 1.1 + 1
    anns = kit.numbered_points(ax, [(a, r) for _, a, r, _ in ours], 100.0, ymax)
    kit.numbered_key(ax, [lab for lab, _, _, _ in ours])
    ax.set_xlabel("counterfactual accuracy (%)")
    ax.set_ylabel("real-life answer rate (%)")
    ax.set_xlim(-3, 110)  # room for the labels of points at 100%
    ax.set_ylim(-3, ymax)
    ax.set_title("KOR-Bench counterfactual: real-life answers against accuracy")
    ax.grid(alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=7)
    kit.declutter(fig, ax, anns)
    return fig


def plot_real_life(views: Sequence[RunView]) -> list[Plot]:
    fig = real_life_figure(views)
    return [] if fig is None else [_plot(
        "real-life-rate", "KOR-Bench counterfactual: real-life answer rate", fig,
        "Grey: the paper's Table 2 models (chat zero-shot, base three-shot); lower real-life rate is better.")]


def self_correction_figure(views: Sequence[RunView]) -> Any:
    """Rounds numbered as the self-correction table numbers them: round 0 is the first answer, round k the
    answer standing after the k-th correction. None when no run is multi-turn. Lines up to
    :data:`plot_kit.MAX_LINES` runs, else a run x round heat map."""
    rounds = [(v, s) for v in views if (s := accuracy_by_round(v.rows))]
    if not rounds:
        return None
    last = max(len(s) for _, s in rounds)
    # a run whose items all stopped early keeps its last accuracy in the later rounds (as each item does)
    series = {lab: {float(k): s[min(k, len(s) - 1)][0] for k in range(last)}
              for lab, (_, s) in zip(run_labels([v for v, _ in rounds]), rounds, strict=True)}
    return kit.series_figure("Self-correction: accuracy by round", series,
                             "round (0 = first answer; as in the self-correction table)", "accuracy after round (%)")


def plot_self_correction(views: Sequence[RunView]) -> list[Plot]:
    fig = self_correction_figure(views)
    if fig is None:
        return []
    return [_plot("self-correction", "Self-correction: accuracy by round", fig,
                  "Round 0 is the first answer, round k the answer after k corrections; items that stopped early "
                  "keep their last verdict in later rounds.")]


def korbench_figures(views: Sequence[RunView]) -> list[Plot]:
    return [*plot_self_correction(views), *plot_real_life(views), *plot_substeps(views), *plot_trick(views)]
