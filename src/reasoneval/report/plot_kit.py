"""Drawing pieces every report plot shares, made to stay readable from 1 to 60+ runs (matplotlib, Agg).

* Figures are one width (:data:`WIDTH_IN`, fits a 1280 px page unscaled) and grow in height with the rows they
  show (:func:`rows_height`), so a plot never shrinks to a strip however many runs it holds; every data area
  is at least :data:`MIN_AXES_IN` high.
* Legends and keys sit outside the data areas (:func:`legend_outside`, :func:`numbered_key`).
* Runs are rows with their label, never a colour to look up: sorted horizontal bars with 95% Wilson
  whiskers (:func:`hbar_panels`), heat maps with the value in each cell (:func:`heatmap_panels`); lines
  (:func:`series_figure`) only up to :data:`MAX_LINES` series, each with its own colour *and* marker,
  else the same data as a heat map.
* :func:`layout` records where the figure drew its data areas, legends and labels (pixels of the PNG), so the
  HTML report can carry it and a browser test can check what the reader sees.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import Any

DPI = 96
WIDTH_IN = 9.6
#: every data area is at least this high (inches; 2.4 in = 230 px at 96 dpi)
MIN_AXES_IN = 2.4
#: height of one row (a run) in bar and heat-map plots (inches; 17 px)
ROW_IN = 0.18
#: up to this many series are drawn as lines (distinct colour and marker each); more become a heat map
MAX_LINES = 8
#: at most this many panels of bars side by side; more categories are shown as a heat map only
MAX_PANELS = 6
LABEL_CHARS = 42
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p")


def figure(w: float, h: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), dpi=DPI, layout="constrained")


def rows_height(n: int, extra: float = 1.3) -> float:
    """Figure height (inches) for ``n`` rows: the rows, at least :data:`MIN_AXES_IN`, plus titles and ticks."""
    return max(n * ROW_IN, MIN_AXES_IN) + extra


def short(s: str, n: int = LABEL_CHARS) -> str:
    """At most ``n`` characters, cut in the middle (a label's tail, ``(three-shot)``, tells runs apart)."""
    if len(s) <= n:
        return s
    head = (n - 1) // 2
    return s[:head] + "…" + s[len(s) - (n - 1 - head):]


def fit_labels(labels: Sequence[str], n: int = LABEL_CHARS) -> list[str]:
    """:func:`short` of each label, still unique: a label whose cut form clashes keeps a number suffix."""
    out = [short(s, n) for s in labels]
    seen: dict[str, int] = {}
    for i, s in enumerate(out):
        if out.count(s) > 1 or s in seen:
            k = seen.get(s, 0) + 1
            seen[s] = k
            out[i] = short(labels[i], n - 4) + f" #{k}"
    return out


def wilson(ok: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of ``ok`` successes in ``n`` (percent)."""
    if n <= 0:
        return (0.0, 0.0)
    p = ok / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (100.0 * max(0.0, mid - half), 100.0 * min(1.0, mid + half))


def legend_outside(fig: Any, ax: Any, ncols: int = 1) -> Any:
    """The axes' legend right of the data area (below it when it has many entries)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if len(handles) > 12:
        return fig.legend(handles, labels, loc="outside lower center", ncols=max(ncols, 3), fontsize=7)
    return fig.legend(handles, labels, loc="outside right upper", fontsize=7)


def style(i: int) -> dict[str, Any]:
    """Colour and marker of series ``i`` (tab10 colours, a marker each: distinguishable also in grey)."""
    return {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)]}


# ---------------------------------------------------------------- bars and heat maps

Cell = tuple[float, int, int] | None  # (accuracy %, correct, scored) or nothing


def hbar_panels(title: str, rows: Sequence[str], panels: Sequence[tuple[str, Sequence[Cell]]],
                xlabel: str = "accuracy (%)") -> Any:
    """Small multiples: one panel per (title, cells), a horizontal bar per row (same order in every panel,
    labels on the first), 95% Wilson whiskers, the value beside each bar."""
    labels = fit_labels(rows)
    n = len(rows)
    fig = figure(WIDTH_IN, rows_height(n, 1.1))
    # the panels share the rows but not a y axis: the first carries the run labels, the others no ticks (a shared
    # axis gives every panel a tick per run, which the layout measures: the plot's time at 60 runs)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    ys = list(range(n))
    for ax, (name, cells) in zip(axes, panels, strict=True):
        vals = [c[0] if c else 0.0 for c in cells]
        lo = [max(0.0, c[0] - wilson(c[1], c[2])[0]) if c else 0.0 for c in cells]
        hi = [max(0.0, wilson(c[1], c[2])[1] - c[0]) if c else 0.0 for c in cells]
        ax.barh(ys, vals, height=0.7, color="C0", xerr=[lo, hi], error_kw={"elinewidth": 0.8, "capsize": 1.5,
                                                                             "ecolor": "0.25"})
        fs = 6.5 if len(panels) > 3 else 7
        for y, c in zip(ys, cells, strict=True):
            if c is None:
                ax.text(1, y, "–", va="center", fontsize=fs, color="0.4")
        ax.set_xlim(0, 100)
        ax.set_title(short(name, 24), fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xticks([0, 50, 100])
        ax.set_ylim(n - 0.5, -0.5)  # first row on top
        if ax is not axes[0]:
            ax.set_yticks([])
    axes[0].set_yticks(ys, labels, fontsize=7)
    fig.supxlabel(xlabel, fontsize=8)
    fig.suptitle(title, fontsize=10)
    return fig


def _text_colour(rgba: Sequence[float]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def heatmap_panels(title: str, rows: Sequence[str],
                   panels: Sequence[tuple[str, Sequence[str], Sequence[Sequence[float | None]]]],
                   cbar_label: str = "accuracy (%)", vmax: float = 100.0) -> Any:
    """Heat maps side by side sharing the rows (labels on the first): (panel title, column labels,
    values[row][col]); each cell shows its value, a blank cell has no data."""
    import numpy as np
    from matplotlib import colormaps

    labels = fit_labels(rows)
    n = len(rows)
    cols_total = sum(len(c) for _, c, _ in panels)
    widest = max((len(short(str(c), 16)) for _, cs, _ in panels for c in cs), default=1)
    long_cols = widest * 6.5 > 620 / max(cols_total, 1)  # column labels wider than their column: slanted
    fig = figure(WIDTH_IN, rows_height(n, 1.5 if long_cols else 1.1))
    ratios = [max(len(c), 1) for _, c, _ in panels]
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False, width_ratios=ratios)[0]
    cmap = colormaps["viridis"]
    digits = 0 if cols_total > 12 else 1
    fs = 6.5 if n > 40 or cols_total > 12 else 7
    for ax, (name, cols, vals) in zip(axes, panels, strict=True):
        arr = np.array([[np.nan if v is None else float(v) for v in r] for r in vals], dtype=float).reshape(
            n, len(cols))
        ax.imshow(np.ma.masked_invalid(arr), cmap=cmap, vmin=0, vmax=vmax, aspect="auto",
                  interpolation="nearest")
        for i in range(n):
            for j in range(len(cols)):
                v = arr[i, j]
                if not np.isnan(v):
                    ax.text(j, i, f"{v:.{digits}f}", ha="center", va="center", fontsize=fs,
                            color=_text_colour(cmap(v / vmax)))
        ax.set_xticks(range(len(cols)), [short(str(c), 16) for c in cols], fontsize=7,
                      rotation=35 if long_cols else 0, ha="left" if long_cols else "center")
        ax.xaxis.tick_top()
        ax.set_title(short(name, 60 if len(panels) == 1 else 30), fontsize=8)
        ax.set_xticks([x - 0.5 for x in range(len(cols) + 1)], minor=True)
        ax.tick_params(which="minor", length=0)
    axes[0].set_yticks(range(n), labels, fontsize=7)
    fig.suptitle(f"{title}  (cell: {cbar_label})", fontsize=10)
    return fig


def series_figure(title: str, series: dict[str, dict[float, float]], xlabel: str, ylabel: str,
                  baseline: tuple[float, str] | None = None, int_x: bool = True) -> Any:
    """Lines (up to :data:`MAX_LINES` series; colour and marker each, legend beside the axes), else a heat
    map of series x points (rows sorted by their mean, best first), so 60 runs stay readable."""
    xs_all = sorted({x for s in series.values() for x in s})
    if len(series) > MAX_LINES:
        order = sorted(series, key=lambda k: -sum(series[k].values()) / max(len(series[k]), 1))
        cols = [f"{x:g}" for x in xs_all]
        return heatmap_panels(title, order, [(xlabel, cols, [[series[k].get(x) for x in xs_all] for k in order])],
                              ylabel)
    fig = figure(WIDTH_IN, MIN_AXES_IN + 1.6)
    ax = fig.subplots()
    for i, (key, pts) in enumerate(series.items()):
        xs = sorted(pts)
        ax.plot(xs, [pts[x] for x in xs], label=short(key), linewidth=1.4, markersize=5, **style(i))
    if baseline is not None:
        ax.axhline(baseline[0], color="0.5", linestyle=":", label=baseline[1])
    if int_x and xs_all:
        lo, hi = math.floor(xs_all[0]), math.ceil(xs_all[-1])
        if hi - lo <= 20:
            ax.set_xticks(range(lo, hi + 1))
        else:
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(lo - 0.5, hi + 0.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-2, 102)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    legend_outside(fig, ax)
    return fig


# ---------------------------------------------------------------- numbered scatter

#: points closer than this share one label (a fraction of each axis: the same spot to the eye, ~3 px)
SAME_SPOT = 0.006
#: a label's gap to other labels, to the points and to the axes' edge (pixels)
GAP_PX = 1.5


def numbered_points(ax: Any, pts: Sequence[tuple[float, float]], xspan: float, yspan: float) -> list[Any]:
    """Number the points 1..n, each with its own label (points on the same spot, within :data:`SAME_SPOT` of
    each axis, share one: ``1,2``, four numbers a line); :func:`declutter` then places every label where it
    overlaps no other label and no point, joined to its point by a thin line when set apart."""
    clusters: list[list[int]] = []
    for n, p in enumerate(pts, 1):
        for c in clusters:
            q = pts[c[0] - 1]
            if abs(p[0] - q[0]) <= SAME_SPOT * xspan and abs(p[1] - q[1]) <= SAME_SPOT * yspan:
                c.append(n)
                break
        else:
            clusters.append([n])
    anns = []
    for nums in clusters:
        p = pts[nums[0] - 1]
        text = "\n".join(",".join(map(str, nums[k:k + 4])) for k in range(0, len(nums), 4))
        anns.append(ax.annotate(text, p, fontsize=7, xytext=(4, 4), textcoords="offset points", gid="point",
                                va="bottom", ha="left", linespacing=1.0,
                                arrowprops={"arrowstyle": "-", "color": "0.55", "lw": 0.5, "shrinkA": 0,
                                            "shrinkB": 3}))
    for a in anns:
        a.set_in_layout(False)  # kept inside the axes by declutter: moving them must not resize the axes
    return anns


def _spots(step: float, reach: float) -> list[tuple[float, float]]:
    """Offsets (pixels) from a point where a label's near corner may go, nearest first, out to ``reach``; the
    four diagonal spots next to the point come first (up-right preferred, as the labels are read)."""
    near = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
    out = []
    n = int(reach // step)
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            if i or j:
                out.append((i * step, j * step))
    out.sort(key=lambda o: (o[0] ** 2 + o[1] ** 2, -o[1], -o[0]))
    return [(x * 4.0, y * 4.0) for x, y in near] + out


class _Grid:
    """Boxes (x0, y0, x1, y1, pixels) in buckets of ``cell`` pixels: which placed box a new one would touch."""

    def __init__(self, cell: float) -> None:
        self.cell = cell
        self.buckets: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _keys(self, b: tuple[float, float, float, float]) -> list[tuple[int, int]]:
        c = self.cell
        return [(i, j) for i in range(int(b[0] // c), int(b[2] // c) + 1)
                for j in range(int(b[1] // c), int(b[3] // c) + 1)]

    def add(self, b: tuple[float, float, float, float]) -> None:
        for k in self._keys(b):
            self.buckets.setdefault(k, []).append(b)

    def hits(self, b: tuple[float, float, float, float], gap: float) -> float:
        """Area of ``b`` (grown by ``gap``) on the boxes (0: free)."""
        g = (b[0] - gap, b[1] - gap, b[2] + gap, b[3] + gap)
        seen: set[tuple[float, float, float, float]] = set()
        area = 0.0
        for k in self._keys(g):
            for o in self.buckets.get(k, ()):
                if o in seen:
                    continue
                seen.add(o)
                w = min(g[2], o[2]) - max(g[0], o[0])
                h = min(g[3], o[3]) - max(g[1], o[1])
                if w > 0 and h > 0:
                    area += w * h
        return area


def declutter(fig: Any, ax: Any, anns: Sequence[Any]) -> None:
    """Place each point label (:func:`numbered_points`) at the nearest spot where it overlaps no label placed
    before it and no numbered point, and stays inside the axes: next to its point when that is free, else
    farther out (the search reaches across the whole axes) with a thin line to its point. The figure is drawn
    once to measure; the rest is arithmetic on pixel boxes. Only when no free spot is left anywhere in the axes
    does a label go where it overlaps least."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig) if not isinstance(fig.canvas, FigureCanvasAgg) else fig.canvas
    engine = fig.get_layout_engine()
    if engine is not None:  # the axes where the drawing will put them (the labels take no part in the layout)
        engine.execute(fig)
    else:
        canvas.draw()
    r = canvas.get_renderer()
    frame = ax.get_window_extent(r)
    to_pt = 72.0 / fig.dpi
    where = [tuple(ax.transData.transform(a.xy)) for a in anns]
    sizes, lead = [], []  # each label's box size, and where it starts from its anchor (pixels)
    for a, (px, py) in zip(anns, where, strict=True):
        a.set_position((0.0, 0.0))
        a.set_ha("left")
        a.set_va("bottom")
        bb = _text_box(a, r)
        sizes.append((bb.width, bb.height))
        lead.append((bb.x0 - px, bb.y0 - py))
    taken = _Grid(12.0)
    mark = 4.5  # half the side of the box a point's marker (s=36: 6 pt, 8 px) takes, with a little margin
    for x, y in where:
        taken.add((x - mark, y - mark, x + mark, y + mark))
    reach = max(frame.width, frame.height)
    rings = (_spots(3.0, min(reach, 120.0)), _spots(6.0, reach)[4:])  # near spots finely, then the whole axes
    for a, (w, h), (px, py), (lx, ly) in zip(anns, sizes, where, lead, strict=True):
        best: tuple[float, float, float, float] | None = None
        for ring in rings:
            for dx, dy in ring:
                x0 = px + dx if dx > 0 else px + dx - w if dx < 0 else px - w / 2
                y0 = py + dy if dy > 0 else py + dy - h if dy < 0 else py - h / 2
                box = (x0, y0, x0 + w, y0 + h)
                out = (max(0.0, frame.x0 + GAP_PX - box[0]) + max(0.0, box[2] - frame.x1 + GAP_PX)
                       + max(0.0, frame.y0 + GAP_PX - box[1]) + max(0.0, box[3] - frame.y1 + GAP_PX)) * (w + h)
                cost = out + taken.hits(box, GAP_PX)
                if best is None or cost < best[0]:
                    best = (cost, x0, y0, dx * dx + dy * dy)
                if cost <= 0:
                    break
            if best is not None and best[0] <= 0:
                break
        assert best is not None
        _, x0, y0, far = best
        if far <= 8.0 ** 2:
            a.arrowprops = a.arrow_patch = None  # next to its point: no line to draw (nor to get in other labels' way)
        a.set_ha("left")
        a.set_va("bottom")
        a.set_position(((x0 - lx - px) * to_pt, (y0 - ly - py) * to_pt))
        taken.add((x0, y0, x0 + w, y0 + h))


def _text_box(t: Any, r: Any) -> Any:
    """The box of a text's letters (an annotation's own extent also covers its line to the point)."""
    from matplotlib.text import Annotation, Text

    if isinstance(t, Annotation):
        t.update_positions(r)
    return Text.get_window_extent(t, r)


def numbered_key(ax: Any, labels: Sequence[str]) -> Any:
    """The key of numbered points beside the axes (one line per run, two columns past 30 runs)."""
    lines = [f"{n:>2}  {lab}" for n, lab in enumerate(fit_labels(labels, 38), 1)]
    half = (len(lines) + 1) // 2 if len(lines) > 30 else len(lines)
    t = ax.text(1.02, 1.0, "\n".join(lines[:half]), transform=ax.transAxes, fontsize=7, va="top", ha="left",
                family="monospace", gid="key")
    if half < len(lines):
        ax.annotate("\n".join(lines[half:]), xy=(1.0, 1.0), xycoords=t, xytext=(8, 0), textcoords="offset points",
                    fontsize=7, va="top", ha="left", family="monospace", gid="key")
    return t


def key_height(n: int) -> float:
    """Figure height (inches) that holds a key of ``n`` lines beside the axes."""
    lines = (n + 1) // 2 if n > 30 else n
    return max(MIN_AXES_IN + 1.6, 1.4 + lines * 7 * 1.25 / 72)


# ---------------------------------------------------------------- output

def _box(bb: Any, height: float) -> list[float]:
    """A display bbox (origin bottom left) as [x0, y0, x1, y1] with the origin top left (image pixels)."""
    return [round(bb.x0, 1), round(height - bb.y1, 1), round(bb.x1, 1), round(height - bb.y0, 1)]


def layout(fig: Any) -> dict[str, Any]:
    """Where the drawn figure put things, in PNG pixels (origin top left): ``axes`` (data areas), ``legends``
    (legend boxes and run keys), ``labels`` (text, font size in px, box, group: the tick labels of one axis,
    one legend, one key; the labels of a group must be unique and not overlap)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig) if not isinstance(fig.canvas, FigureCanvasAgg) else fig.canvas
    canvas.draw()
    r = canvas.get_renderer()
    h = fig.bbox.height
    px = fig.dpi / 72.0
    pw, ph = canvas.get_width_height(physical=True)  # the PNG's pixels (the figure's size, truncated)
    out: dict[str, Any] = {"w": pw, "h": ph, "axes": [], "legends": [], "labels": []}

    def label(t: Any, group: str) -> None:
        if t.get_visible() and t.get_text().strip():
            out["labels"].append({"t": t.get_text(), "px": round(t.get_fontsize() * px, 1),
                                  "b": _box(_text_box(t, r), h), "g": group})

    legends = list(fig.legends)
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        out["axes"].append(_box(ax.get_window_extent(r), h))
        for axis, name, sides in ((ax.yaxis, "y", ("labelleft", "labelright")),
                                  (ax.xaxis, "x", ("labelbottom", "labeltop"))):
            kw = axis.get_tick_params(which="major")
            if not (kw.get(sides[0], True) or kw.get(sides[1], False)):
                continue
            lo, hi = sorted(axis.get_view_interval())
            eps = (hi - lo) * 1e-6
            for loc, t in zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=False):
                if lo - eps <= loc <= hi + eps:  # ticks beyond the limits are not drawn
                    label(t, f"axes{i}-{name}")
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        for t in ax.texts:
            if t.get_gid() == "point":
                label(t, f"points{i}")
            if t.get_gid() == "key":
                out["legends"].append(_box(t.get_window_extent(r), h))
                for j, line in enumerate(t.get_text().split("\n")):
                    out["labels"].append({"t": line, "px": round(t.get_fontsize() * px, 1),
                                          "b": _box(t.get_window_extent(r), h), "g": f"key{i}", "line": j})
    for j, lg in enumerate(legends):
        out["legends"].append(_box(lg.get_window_extent(r), h))
        for t in lg.get_texts():
            label(t, f"legend{j}")
    return out


def png(fig: Any) -> tuple[str, dict[str, Any]]:
    """The figure as base64 PNG and its :func:`layout`."""
    from PIL import Image

    lay = layout(fig)  # draws the figure once; the PNG is that drawing (savefig would draw it again)
    canvas = fig.canvas
    w, h = canvas.get_width_height(physical=True)
    buf = io.BytesIO()
    img = Image.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
    # 256 colours hold a plot's few colours and their anti-aliasing: a quarter of the bytes of full colour
    img.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(buf, format="PNG", optimize=True)
    return base64.b64encode(buf.getvalue()).decode("ascii"), lay
