"""Plots for the HTML report, rendered with matplotlib (Agg, object API: no pyplot, no global backend change).

Every plot function takes the run views and returns a list of :class:`Plot` (inline PNG, base64); it returns
an empty list when its data is absent. The plots here are generic (accuracy per category, accuracy against
tokens); a benchmark's own figures come from its ``Benchmark.figures`` and are drawn with the same pieces
(:func:`_plot`, :mod:`.plot_kit`, :func:`accuracy_by_round` for multi-turn protocols).
matplotlib is an optional extra (``pip install 'reasoneval[report]'``): :func:`make_plots` then returns no
plots and a note saying why.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.benchmark import ScoredRow, Turn
from . import plot_kit as kit
from .collect import RunView
from .labels import mode_label
from .labels import run_labels as _labels


@dataclass
class Plot:
    key: str
    title: str
    png_b64: str
    caption: str = ""
    #: where the PNG shows its data areas, legends and labels (:func:`plot_kit.layout`)
    layout: dict[str, Any] | None = None


# ---------------------------------------------------------------- data helpers (no matplotlib needed)

def run_labels(views: Sequence[RunView]) -> list[str]:
    """A readable label per run, unique within its benchmark: its display name, with what tells it apart from
    runs of the same name (``(three-shot)``, ``(corrected)``; :mod:`.labels`)."""
    return _labels(views)


def _is_error(t: Turn) -> bool:
    return t.error is not None or (t.verdict is not None and t.verdict.outcome.value == "error")


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
    return kit.figure(w, h)


def _png(fig: Any) -> str:
    return kit.png(fig)[0]


def _short(s: str, n: int = 40) -> str:
    return kit.short(s, n)


def _plot(key: str, title: str, fig: Any, caption: str = "") -> Plot:
    b64, lay = kit.png(fig)
    return Plot(key, title, b64, caption, lay)


def _by_protocol(views: Sequence[RunView]) -> dict[str, list[int]]:
    """Run indices per benchmark and mode (``<benchmark> zero-shot``): protocols are never ranked together; a
    benchmark with one mode only is named alone. A run imported from another harness's prompts is its own
    protocol (``labels.mode_label``)."""
    out: dict[str, list[int]] = defaultdict(list)
    modes: dict[str, set[str]] = defaultdict(set)
    for v in views:
        modes[str(v.run.get("benchmark", "?"))].add(mode_label(v.run))
    for i, v in enumerate(views):
        b = str(v.run.get("benchmark", "?"))
        out[b if len(modes[b]) == 1 else f"{b} {mode_label(v.run)}"].append(i)
    return out


def _cell(rows: Iterable[ScoredRow]) -> kit.Cell:
    ok = n = 0
    for r in rows:
        if _is_error(r.final):
            continue
        n += 1
        ok += _correct(r.final)
    return (100.0 * ok / n, ok, n) if n else None


def category_cells(views: Sequence[RunView]) -> dict[str, tuple[list[str], list[str], list[list[kit.Cell]]]]:
    """Per benchmark and mode: (run labels sorted best first, columns ``overall`` + subsets, cells[run][column]).
    A run missing a category (:func:`.assemble.completeness`) has no overall cell, is labelled ``(incomplete)``
    and comes after the complete runs."""
    from .completeness import completeness

    out = {}
    for bench, idx in _by_protocol(views).items():
        got = []
        labels = dict(zip(idx, run_labels([views[i] for i in idx]), strict=True))  # the mode goes without saying
        for i in idx:
            by: dict[str, list[ScoredRow]] = defaultdict(list)
            for r in views[i].rows:
                by[r.subset].append(r)
            cells = {s: _cell(rs) for s, rs in by.items()}
            if any(cells.values()):
                # a run missing a category has no overall (as in the paper's table): marked, ranked after
                whole, _ = completeness(views[i])
                got.append((labels[i] if whole else f"{labels[i]} (incomplete)",
                            _cell(views[i].rows) if whole else None, cells))
        if not got:
            continue
        subsets = sorted({s for _, _, c in got for s, x in c.items() if x})
        cols = subsets if len(subsets) == 1 else ["overall", *subsets]
        got.sort(key=lambda g: (g[1] is None, -(g[1][0] if g[1] else -1.0)))
        cells_out = [[o if c == "overall" else d.get(c) for c in cols] for _, o, d in got]
        out[bench] = ([g[0] for g in got], cols, cells_out)
    return out


def plot_category_bars(views: Sequence[RunView]) -> list[Plot]:
    """Per benchmark and mode: small multiples (overall and each category; runs sorted best first, 95%
    whiskers) when there are at most :data:`plot_kit.MAX_PANELS` panels, and the run x category heat map when
    there is more than one category."""
    plots = []
    for name, (labels, cols, cells) in category_cells(views).items():
        key = re.sub(r"[^a-z0-9-]+", "-", name.lower())
        if len(cols) <= kit.MAX_PANELS:
            fig = kit.hbar_panels(f"{name}: accuracy per category (sorted by overall)", labels,
                                  [(c, [row[j] for row in cells]) for j, c in enumerate(cols)])
            plots.append(_plot(f"categories-{key}", f"{name}: accuracy per category", fig,
                               "Final-turn accuracy; failed calls excluded; whiskers: 95% Wilson interval."))
        if len(cols) > 1:
            vals = [[c[0] if c else None for c in row] for row in cells]
            fig = kit.heatmap_panels(f"{name}: run x category", labels, [("", cols, vals)])
            plots.append(_plot(f"heatmap-{key}", f"{name}: accuracy heat map (run x category)", fig,
                               "Each cell: final-turn accuracy (%); rows sorted by overall accuracy; blank: no "
                               "items."))
    return plots


def accuracy_vs_tokens_figure(views: Sequence[RunView]) -> Any:
    """Each run is a point marked with its number; the numbers are keyed to run names beside the axes, so
    labels never overlap however close the points lie (coincident points share one label, ``1,2``)."""
    labels = run_labels(views)
    benches = {str(v.run.get("benchmark", "?")) for v in views}
    pts = []
    for i, v in enumerate(views):
        acc, _ = accuracy(v.rows)
        toks = v.stats.get("mean_output_tokens") or 0
        if acc is not None and toks:
            b = str(v.run.get("benchmark", "?"))
            pts.append((f"{labels[i]} · {b}" if len(benches) > 1 else labels[i], b, float(toks), acc))
    if not pts:
        return None
    fig = kit.figure(kit.WIDTH_IN, kit.key_height(len(pts)))
    ax = fig.subplots()
    for k, bench in enumerate(sorted({p[1] for p in pts})):
        sel = [p for p in pts if p[1] == bench]
        ax.scatter([p[2] for p in sel], [p[3] for p in sel], label=bench, s=22, **kit.style(k))
    xmax = max(p[2] for p in pts) * 1.1
    anns = kit.numbered_points(ax, [(p[2], p[3]) for p in pts], xmax, 100.0)
    kit.numbered_key(ax, [p[0] for p in pts])
    ax.set_xlabel("mean output tokens per call")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(-4, 112)  # room for the labels of points at 0 and 100%
    ax.set_yticks(range(0, 101, 20))
    ax.set_xlim(0, xmax)
    ax.set_title("Accuracy against mean output tokens (per run)")
    ax.grid(alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=min(4, len(benches)), fontsize=7)
    kit.declutter(fig, ax, anns)
    return fig


def plot_accuracy_vs_tokens(views: Sequence[RunView]) -> list[Plot]:
    """One plot per benchmark and mode (token counts of different protocols are not comparable)."""
    groups = _by_protocol(views)
    out = []
    for name, idx in groups.items():
        fig = accuracy_vs_tokens_figure([views[i] for i in idx])
        if fig is None:
            continue
        key = "acc-vs-tokens" + ("" if len(groups) == 1 else "-" + re.sub(r"[^a-z0-9-]+", "-", name.lower()))
        out.append(_plot(key, f"Accuracy against mean output tokens ({name})", fig,
                         "Points are numbered; the key beside the plot names each run."))
    return out


PLOTS: tuple[Callable[[Sequence[RunView]], list[Plot]], ...] = (plot_category_bars, plot_accuracy_vs_tokens)


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


_ASIDE: Sequence[RunView] = ()  # the views a forked plotting process draws (inherited, never pickled)


def _make_plots_aside() -> tuple[list[Plot], list[str]]:
    return make_plots(_ASIDE)


def make_plots_aside(views: Sequence[RunView]) -> Callable[[], tuple[list[Plot], list[str]]]:
    """:func:`make_plots` in a forked process while the caller goes on (the plots are a third of a large HTML
    report's time, and their own process draws them on another core); returns the function that waits for
    them. The child inherits the views (nothing is pickled but the plots coming back) and touches nothing
    else; where processes cannot be forked, or the child fails, the plots are made here when asked for.
    Call it before starting any thread."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        return lambda: make_plots(views)
    from concurrent.futures import ProcessPoolExecutor

    global _ASIDE
    _ASIDE = views
    try:
        pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))
        future = pool.submit(_make_plots_aside)
    except OSError:
        _ASIDE = ()
        return lambda: make_plots(views)

    def wait() -> tuple[list[Plot], list[str]]:
        global _ASIDE
        try:
            return future.result()
        except Exception:  # noqa: BLE001 - a child that died (memory, a signal): the plots are made here
            return make_plots(views)
        finally:
            pool.shutdown(wait=True)
            _ASIDE = ()

    return wait


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
