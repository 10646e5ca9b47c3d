"""FineReason Figs. 6-7 as line plots (PNG) from the transfer report's tables: GSM8K accuracy against the math
ratio r_m and against the number of training samples, ours as lines, the paper's numbers as crosses.

matplotlib's object API (no pyplot, no global backend); an ImportError names the extra to install."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.benchmark import Table


def _figure() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ValueError(f"plots need matplotlib ({e}); pip install 'reasoneval[report]'") from None
    return Figure(figsize=(5.5, 3.6), dpi=96, layout="constrained")


def _plot(path: Path, title: str, xlabel: str, series: dict[str, list[tuple[float, float]]],
          paper: list[tuple[float, float]]) -> Path:
    fig = _figure()
    ax = fig.add_subplot()
    for name, points in sorted(series.items()):
        pts = sorted(points)
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=name)
    if paper:
        ax.scatter([x for x, _ in paper], [y for _, y in paper], marker="x", s=60, color="black", label="paper")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("GSM8K accuracy (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.savefig(path, format="png")
    return path


def write_plots(tables: list[Table], folder: Path) -> list[Path]:
    """``fig6.png`` / ``fig7.png`` in ``folder`` for the layouts present in ``tables`` (the report's own)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for t in tables:
        if t.title.startswith("FineReason Fig. 6"):  # r_m, size, training, checkpoint, GSM8K, GSM8K (paper)
            series: dict[str, list[tuple[float, float]]] = {}
            paper: list[tuple[float, float]] = []
            for rm, size, role, _, ours, theirs in t.rows:
                if ours is not None:
                    series.setdefault(f"{role} {size}", []).append((rm, ours))
                if theirs is not None:
                    paper.append((rm, theirs))
            out.append(_plot(folder / "fig6.png", "FineReason Fig. 6: math ratio", "r_m", series, paper))
        elif t.title.startswith("FineReason Fig. 7"):  # samples, size, math-only, (paper), mixed, (paper)
            series, paper = {}, []
            for n, size, math_only, p_math, mixed, p_mixed in t.rows:
                for role, ours, theirs in (("math-only", math_only, p_math), ("mixed", mixed, p_mixed)):
                    if ours is not None:
                        series.setdefault(f"{role} {size}", []).append((n, ours))
                    if theirs is not None:
                        paper.append((n, theirs))
            out.append(_plot(folder / "fig7.png", "FineReason Fig. 7: scaling", "training samples", series, paper))
    return out
