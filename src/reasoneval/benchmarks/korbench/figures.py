"""KOR-Bench's paper figure drawn from stored runs (``KorBench.figures``): cipher sub-steps (paper Fig. 4), the
accuracy per sub-step type of each ``subquestions`` run, the paper's overall step accuracy for its four models
in the caption."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...report.collect import RunView
from ...report.plots import Plot, _figure, _is_error, _png, _short, run_labels

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
