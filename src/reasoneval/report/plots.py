"""Plots for the HTML report, rendered with matplotlib (Agg, object API: no pyplot, no global backend change).

Every plot function takes the run views and returns a list of :class:`Plot` (inline PNG, base64); it returns
an empty list when its data is absent, so FineReason-only plots simply do not appear for other benchmarks.
matplotlib is an optional extra (``pip install 'reasoneval[report]'``): :func:`make_plots` then returns no
plots and a note saying why.
"""

from __future__ import annotations

import base64
import io
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.benchmark import ScoredRow, Table, Turn
from .collect import RunView


@dataclass
class Plot:
    key: str
    title: str
    png_b64: str
    caption: str = ""


# ---------------------------------------------------------------- data helpers (no matplotlib needed)

def run_labels(views: Sequence[RunView]) -> list[str]:
    """A readable label per run, unique within its benchmark: the model, then ``· mode``, then the run id."""
    labels = [str(v.run.get("model", "?")) for v in views]
    benches = [str(v.run.get("benchmark", "")) for v in views]
    extras = (lambda i, v: str(v.run.get("mode", "")), lambda i, v: str(v.run.get("run_id", ""))[:8],
              lambda i, v: f"#{i + 1}")
    for extra in extras:
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for b, lab in zip(benches, labels, strict=True):
            counts[(b, lab)] += 1
        labels = [f"{lab} · {extra(i, v)}" if counts[(b, lab)] > 1 else lab
                  for i, (b, lab, v) in enumerate(zip(benches, labels, views, strict=True))]
    return labels


def _is_error(t: Turn) -> bool:
    return t.completion.error is not None or (t.verdict is not None and t.verdict.outcome.value == "error")


def _correct(t: Turn) -> bool:
    return t.verdict is not None and t.verdict.correct


def accuracy(rows: Iterable[ScoredRow]) -> tuple[float | None, int]:
    """Accuracy (percent) over final turns, failed calls excluded; and the number of scored rows."""
    ok = n = 0
    for r in rows:
        if _is_error(r.final):
            continue
        n += 1
        ok += _correct(r.final)
    return (100.0 * ok / n if n else None), n


def per_subset_accuracy(rows: Iterable[ScoredRow]) -> dict[str, tuple[float, int]]:
    by: dict[str, list[ScoredRow]] = defaultdict(list)
    for r in rows:
        by[r.subset].append(r)
    out = {}
    for sub in sorted(by):
        acc, n = accuracy(by[sub])
        if acc is not None:
            out[sub] = (acc, n)
    return out


def accuracy_by_round(rows: Sequence[ScoredRow]) -> list[tuple[float, int]]:
    """Accuracy after each round of a multi-turn protocol; an item that stopped early keeps its last verdict.

    Empty when no row has more than one turn.
    """
    if not any(len(r.turns) > 1 for r in rows):
        return []
    rounds = max(len(r.turns) for r in rows)
    out = []
    for k in range(rounds):
        ok = n = 0
        for r in rows:
            t = r.turns[min(k, len(r.turns) - 1)]
            if _is_error(t):
                continue
            n += 1
            ok += _correct(t)
        out.append((100.0 * ok / n if n else 0.0, n))
    return out


def _norm(s: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(s).lower())


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, int | float):
        return float(x)
    m = re.match(r"^\s*([-+]?\d+(?:\.\d+)?)", str(x))
    return float(m.group(1)) if m else None


def _find_col(t: Table, pred: Callable[[str], bool]) -> int | None:
    for i, c in enumerate(t.columns):
        if pred(_norm(c)):
            return i
    return None


def _group_col(t: Table, exclude: set[int]) -> int | None:
    """First column holding text labels (puzzle / subset), other than the excluded ones."""
    for i in range(len(t.columns)):
        if i in exclude or _norm(t.columns[i]) in ("model", "n", "count"):
            continue
        if t.rows and all(isinstance(r[i], str) and _num(r[i]) is None for r in t.rows if i < len(r)):
            return i
    return None


def depth_series(views: Sequence[RunView]) -> dict[str, dict[float, tuple[float, int]]]:
    """Accuracy by tree depth, keyed ``label[ / group]``: from tables with depth and accuracy columns, else
    from rows whose verdict detail carries ``depth``."""
    labels = run_labels(views)
    series: dict[str, dict[float, tuple[float, int]]] = {}
    for v, lab in zip(views, labels, strict=True):
        got = False
        for t in v.tables:
            di = _find_col(t, lambda c: c == "depth" or c.endswith("depth") or c.startswith("depth"))
            ai = _find_col(t, lambda c: c.startswith("acc") or c == "accuracy")
            if di is None or ai is None:
                continue
            gi = _group_col(t, {di, ai})
            ni = _find_col(t, lambda c: c == "n")
            for r in t.rows:
                d, a = _num(r[di]), _num(r[ai])
                if d is None or a is None:
                    continue
                key = lab if gi is None else f"{lab} / {r[gi]}"
                n = int(_num(r[ni]) or 0) if ni is not None else 0
                series.setdefault(key, {})[d] = (a, n)
                got = True
        if got:
            continue
        acc: dict[tuple[str, float], list[int]] = defaultdict(lambda: [0, 0])
        for row in v.rows:
            vd = row.final.verdict
            d = _num(vd.detail.get("depth")) if vd is not None else None
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
            pi = _find_col(t, lambda c: c.startswith("precision") or c == "p")
            ri = _find_col(t, lambda c: c.startswith("recall") or c == "r")
            if pi is None or ri is None:
                continue
            gi = _group_col(t, {pi, ri})
            for r in t.rows:
                p, rc = _num(r[pi]), _num(r[ri])
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


# ---------------------------------------------------------------- rendering

def matplotlib_missing() -> str | None:
    """None when matplotlib can be imported, else a reason to print."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError as e:
        return f"matplotlib is not installed ({e}); install the report extra: pip install 'reasoneval[report]'"
    return None


def _figure(w: float, h: float) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=96, layout="constrained")
    return fig


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _short(s: str, n: int = 40) -> str:
    """At most ``n`` characters, cut in the middle: a run label's tail (``· mode``, run id) tells runs of one
    model apart, so it is kept."""
    if len(s) <= n:
        return s
    head = (n - 1) // 2
    return s[:head] + "…" + s[len(s) - (n - 1 - head):]


def _by_benchmark(views: Sequence[RunView]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, v in enumerate(views):
        out[str(v.run.get("benchmark", "?"))].append(i)
    return out


def plot_category_bars(views: Sequence[RunView]) -> list[Plot]:
    labels = run_labels(views)
    plots = []
    for bench, idx in _by_benchmark(views).items():
        data = {labels[i]: per_subset_accuracy(views[i].rows) for i in idx}
        data = {k: d for k, d in data.items() if d}
        if not data:
            continue
        subsets = sorted({s for d in data.values() for s in d})
        nm = len(data)
        fig = _figure(max(5.0, min(16.0, 1.0 + 0.35 * len(subsets) * nm + 0.4 * len(subsets))), 3.6)
        ax = fig.subplots()
        width = 0.8 / nm
        for j, (lab, d) in enumerate(data.items()):
            xs = [i + (j - (nm - 1) / 2) * width for i in range(len(subsets))]
            ax.bar(xs, [d.get(s, (0.0, 0))[0] for s in subsets], width, label=_short(lab))
        ax.set_xticks(range(len(subsets)), [_short(s, 18) for s in subsets],
                      rotation=30 if len(subsets) > 5 else 0, ha="right" if len(subsets) > 5 else "center")
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 100)
        ax.set_title(f"{bench}: accuracy per category")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        plots.append(Plot(f"categories-{bench}", f"{bench}: accuracy per category", _png(fig),
                          "Final-turn accuracy per subset; failed calls excluded."))
    return plots


def self_correction_figure(views: Sequence[RunView]) -> Any:
    """Rounds numbered as the self-correction table numbers them: round 0 is the first answer, round k the
    answer standing after the k-th correction. None when no run is multi-turn."""
    labels = run_labels(views)
    raw = [(labels[i], str(v.run.get("benchmark", "")), accuracy_by_round(v.rows)) for i, v in enumerate(views)]
    many = len({b for _, b, s in raw if s}) > 1
    series = [(f"{lab} ({b})" if many else lab, s) for lab, b, s in raw if s]
    if not series:
        return None
    fig = _figure(6.0, 3.6)
    ax = fig.subplots()
    for lab, s in series:
        ax.plot(range(len(s)), [a for a, _ in s], marker="o", label=_short(lab))
    rounds = max(len(s) for _, s in series)
    ax.set_xticks(range(rounds))
    ax.set_xlabel("round (0 = first answer; as in the self-correction table)")
    ax.set_ylabel("accuracy after round (%)")
    ax.set_ylim(-2, 102)
    ax.set_title("Self-correction: accuracy by round")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def plot_self_correction(views: Sequence[RunView]) -> list[Plot]:
    fig = self_correction_figure(views)
    if fig is None:
        return []
    return [Plot("self-correction", "Self-correction: accuracy by round", _png(fig),
                 "Round 0 is the first answer, round k the answer after k corrections; items that stopped early "
                 "keep their last verdict in later rounds.")]


def accuracy_vs_tokens_figure(views: Sequence[RunView]) -> Any:
    """Each run is a point marked with its number; the numbers are keyed to run names beside the axes, so
    labels never overlap however close the points lie (coincident points share one label, ``1,2``)."""
    labels = run_labels(views)
    pts = []
    for i, v in enumerate(views):
        acc, _ = accuracy(v.rows)
        toks = v.stats.get("mean_output_tokens") or 0
        if acc is not None and toks:
            pts.append((labels[i], str(v.run.get("benchmark", "?")), float(toks), acc))
    if not pts:
        return None
    fig = _figure(7.5, max(3.8, 1.6 + 0.2 * len(pts)))
    ax = fig.subplots()
    for bench in sorted({p[1] for p in pts}):
        sel = [p for p in pts if p[1] == bench]
        ax.scatter([p[2] for p in sel], [p[3] for p in sel], label=bench)
    xmax = max(p[2] for p in pts) * 1.1
    # points closer than a label's size (8% of the x axis, 6 points of accuracy) share one label, "1,2"
    clusters: list[list[int]] = []
    for n, p in enumerate(pts, 1):
        for c in clusters:
            q = pts[c[0] - 1]
            if abs(p[2] - q[2]) < 0.08 * xmax and abs(p[3] - q[3]) < 6:
                c.append(n)
                break
        else:
            clusters.append([n])
    for nums in clusters:
        p = pts[nums[0] - 1]
        ax.annotate(",".join(map(str, nums)), (p[2], p[3]), fontsize=7, xytext=(4, 4), textcoords="offset points")
    key = "\n".join(f"{n}  {_short(p[0], 40)}" for n, p in enumerate(pts, 1))
    ax.text(1.02, 1.0, key, transform=ax.transAxes, fontsize=7, va="top", ha="left", family="monospace")
    ax.set_xlabel("mean output tokens per call")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(-2, 102)
    ax.set_xlim(0, xmax)
    ax.set_title("Accuracy against mean output tokens (per run)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def plot_accuracy_vs_tokens(views: Sequence[RunView]) -> list[Plot]:
    fig = accuracy_vs_tokens_figure(views)
    if fig is None:
        return []
    return [Plot("acc-vs-tokens", "Accuracy against mean output tokens", _png(fig),
                 "Points are numbered; the key beside the plot names each run.")]


def depth_figure(views: Sequence[RunView]) -> Any:
    """Depths are whole numbers: the ticks are exactly the depths present (a single depth included)."""
    series = depth_series(views)
    if not series:
        return None
    fig = _figure(6.4, 3.8)
    ax = fig.subplots()
    for key, pts in series.items():
        xs = sorted(pts)
        ax.plot(xs, [pts[x][0] for x in xs], marker="o", label=_short(key, 48))
    depths = sorted({d for pts in series.values() for d in pts})
    lo, hi = math.floor(depths[0]), math.ceil(depths[-1])
    if hi - lo <= 20:
        ax.set_xticks(range(lo, hi + 1))
    else:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(lo - 0.5, hi + 0.5)
    ax.set_xlabel("tree depth")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(-2, 102)
    ax.set_title("Accuracy by tree depth")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def plot_depth(views: Sequence[RunView]) -> list[Plot]:
    fig = depth_figure(views)
    return [] if fig is None else [Plot("depth", "FineReason: accuracy by tree depth", _png(fig))]


def plot_precision_recall(views: Sequence[RunView]) -> list[Plot]:
    pr = precision_recall(views)
    if not pr:
        return []
    names = [_short(f"{lab} / {g}", 40) for lab, g, _, _ in pr]
    fig = _figure(max(5.0, min(16.0, 1.5 + 0.7 * len(pr))), 3.8)
    ax = fig.subplots()
    xs = range(len(pr))
    ax.bar([x - 0.2 for x in xs], [p for _, _, p, _ in pr], 0.4, label="precision")
    ax.bar([x + 0.2 for x in xs], [r for _, _, _, r in pr], 0.4, label="recall")
    ax.set_xticks(list(xs), names, rotation=30 if len(pr) > 3 else 0, ha="right" if len(pr) > 3 else "center",
                  fontsize=7)
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title("State checking: precision / recall (positive = unsolvable)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    return [Plot("state-checking-pr", "FineReason state checking: precision and recall", _png(fig))]


def real_life_points(views: Sequence[RunView]) -> list[tuple[str, float, float, int]]:
    """(run label, counterfactual accuracy, real-life answer rate, items) for KOR-Bench runs whose
    counterfactual verdicts carry ``real_life`` (percentages; failed calls excluded)."""
    out = []
    for v, lab in zip(views, run_labels(views), strict=True):
        rows = [r for r in v.rows if r.subset == "counterfactual" and not _is_error(r.final)
                and r.final.verdict is not None and "real_life" in r.final.verdict.detail]
        if rows:
            n = len(rows)
            acc = 100.0 * sum(_correct(r.final) for r in rows) / n
            rl = 100.0 * sum(bool(r.final.verdict.detail["real_life"]) for r in rows if r.final.verdict) / n
            out.append((lab, acc, rl, n))
    return out


def real_life_figure(views: Sequence[RunView]) -> Any:
    """KOR-Bench Figs. 6/7: real-life answer rate against counterfactual accuracy, the paper's models (Table 2,
    chat and base) in grey behind ours."""
    from . import paper_numbers as pn

    ours = real_life_points(views)
    if not ours:
        return None
    fig = _figure(6.4, 4.0)
    ax = fig.subplots()
    for table, marker, name in ((pn.KORBENCH_TABLE2_CHAT, "o", "paper: chat (zero-shot)"),
                                (pn.KORBENCH_TABLE2_BASE, "s", "paper: base (three-shot)")):
        ax.scatter([r["Counterfactual"] for r in table.values()], [r["Counterfactual RL"] for r in table.values()],
                   marker=marker, color="0.7", s=18, label=name)
    for n, (lab, acc, rl, _) in enumerate(ours, 1):
        ax.scatter([acc], [rl], s=40, label=f"{n}  {_short(lab, 40)}", zorder=3)
        ax.annotate(str(n), (acc, rl), fontsize=7, xytext=(4, 4), textcoords="offset points")
    ax.set_xlabel("counterfactual accuracy (%)")
    ax.set_ylabel("real-life answer rate (%)")
    ax.set_xlim(-2, 102)
    ax.set_ylim(bottom=0)
    ax.set_title("KOR-Bench counterfactual: real-life answers against accuracy")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def plot_real_life(views: Sequence[RunView]) -> list[Plot]:
    fig = real_life_figure(views)
    return [] if fig is None else [Plot(
        "real-life-rate", "KOR-Bench counterfactual: real-life answer rate", _png(fig),
        "Grey: the paper's Table 2 models (chat zero-shot, base three-shot); lower real-life rate is better.")]


PLOTS: tuple[Callable[[Sequence[RunView]], list[Plot]], ...] = (
    plot_category_bars, plot_self_correction, plot_accuracy_vs_tokens, plot_depth, plot_precision_recall,
    plot_real_life)


def make_plots(views: Sequence[RunView]) -> tuple[list[Plot], list[str]]:
    """All plots whose data exist, and notes (matplotlib missing, a plot that failed)."""
    missing = matplotlib_missing()
    if missing:
        return [], [f"Plots skipped: {missing}."]
    import matplotlib

    plots: list[Plot] = []
    notes: list[str] = []
    rc: Any = {"font.size": 9}  # matplotlib types rc keys as a Literal of every rcParam name
    if "text.parse_math" in matplotlib.rcParams:
        rc["text.parse_math"] = False  # model / subset names with '$' are text, not TeX
    with matplotlib.rc_context(rc):
        for fn in PLOTS:
            try:
                plots.extend(fn(views))
            except Exception as e:  # one broken plot must not lose the whole report
                notes.append(f"Plot {fn.__name__} failed: {type(e).__name__}: {e}")
        for name, runs in _views_by_benchmark(views).items():  # each benchmark's paper figures (Benchmark.figures)
            try:
                plots.extend(_figures_of(name, runs))
            except Exception as e:  # one broken plot must not lose the whole report
                notes.append(f"Plot of {name} failed: {type(e).__name__}: {e}")
    return plots, notes


def _views_by_benchmark(views: Sequence[RunView]) -> dict[str, list[RunView]]:
    out: dict[str, list[RunView]] = {}
    for v in views:
        out.setdefault(str(v.run.get("benchmark")), []).append(v)
    return out


def _figures_of(name: str, views: list[RunView]) -> list[Plot]:
    from ..core import registry

    try:
        bench = registry.get(name)
    except registry.UnknownBenchmark:
        return []
    return list(bench.figures(views))
