"""Rendering of an :class:`~.attention.AttentionView`: a PNG (matplotlib) or one self-contained HTML page.

The HTML page uses the report's stylesheet plus a few classes, no script, and the report's Content-Security-Policy
(only the inline style, by hash, and ``data:`` images). Everything from the model or the item (answer, rule,
question, token text) goes through ``html.escape``; token shading is a class (``a0``..``a9``), never a style.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ... import __version__
from ...report.html_page import _asset, _sha256, esc
from ...report.plots import _figure, _png, matplotlib_missing
from .attention import AttentionView

LEVELS = 10
_CSS = "".join(f".a{k}{{background:rgba(190,40,30,{0.85 * k / (LEVELS - 1):.3f})}}" for k in range(LEVELS)) + """
.a7,.a8,.a9{color:#fff}
.ruletext{white-space:pre-wrap;font:12.5px/1.7 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
  border:1px solid var(--line);padding:8px 10px;background:#fff;max-width:1100px}
.ruletext .nd{border-bottom:2px solid var(--accent)}
.heatmap img{max-width:100%}
"""


def figure(view: AttentionView) -> Any:
    """Left: layer x head heat map of rule-attention mass, top heads boxed. Right: mass on each rule line,
    mean over the top heads (needle lines in the accent colour)."""
    import numpy as np

    n_layers, n_heads = view.shape
    fig = _figure(10.5, max(4.0, 0.18 * n_layers + 1.5))
    ax, bx = fig.subplots(1, 2, width_ratios=[1.1, 1.0])
    im = ax.imshow(view.mass, aspect="auto", cmap="Reds", vmin=0.0, vmax=max(float(view.mass.max()), 1e-9),
                   origin="upper", interpolation="nearest")
    from matplotlib.patches import Rectangle

    for rank, (layer, head) in enumerate(view.top, 1):
        ax.add_patch(Rectangle((head - 0.5, layer - 0.5), 1, 1, fill=False, ec="#2b5fb4", lw=1.5))
        ax.text(head, layer, str(rank), ha="center", va="center", fontsize=7, color="white", fontweight="bold")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_xticks(range(n_heads))
    ax.set_title("answer-token attention mass on the rule", fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.05)
    seg = np.mean([view.segment_mass(*lh) for lh in view.top], axis=0) if view.top else []
    labels = [_short(g.text, 38) for g in view.segments]
    bx.barh(range(len(labels)), seg, color=["#2b5fb4" if g.needle else "#b9c2cf" for g in view.segments])
    bx.set_yticks(range(len(labels)), labels, fontsize=7)
    bx.invert_yaxis()
    bx.set_xlabel(f"mass on each rule line (mean of top {len(view.top)} heads)")
    bx.set_title("rule lines (blue: needle)", fontsize=10)
    fig.suptitle(f"{view.item_key} · {Path(view.model).name} · answer: {view.answer_source}", fontsize=10)
    return fig


def _short(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def write_png(view: AttentionView, path: Path) -> None:
    missing = matplotlib_missing()
    if missing:
        raise RuntimeError(missing)
    figure(view).savefig(path, format="png", dpi=110)


def shaded_rule(view: AttentionView, layer: int, head: int) -> str:
    """The rule text, each token shaded by the attention the answer tokens give it in one head (escaped)."""
    r0, r1 = view.spans["rule"]
    w = view.rule_attention[layer, head]
    top = float(w.max()) or 1.0
    needle = {i for g in view.segments if g.needle for i in range(g.start, g.end)}
    out, pos = [], view.offsets[r0][0]
    for i in range(r0, r1):
        s, e = view.offsets[i]
        out.append(esc(view.text[pos:s]))
        level = min(LEVELS - 1, int(float(w[i - r0]) / top * (LEVELS - 1) + 0.5))
        cls = f"a{level}" + (" nd" if i in needle else "")
        out.append(f'<span class="{cls}" title="{float(w[i - r0]):.4f}">{esc(view.text[s:e])}</span>')
        pos = e
    return '<div class="ruletext">' + "".join(out) + "</div>"


def _heads_table(view: AttentionView) -> str:
    rows = []
    for rank, (layer, head) in enumerate(view.top, 1):
        seg = view.segment_mass(layer, head)
        nd = sum(m for m, g in zip(seg, view.segments, strict=True) if g.needle)
        rows.append(f"<tr><td>{rank}</td><td>{layer}</td><td>{head}</td><td>{view.mass[layer, head]:.3f}</td>"
                    f"<td>{view.retrieval[layer, head]:.3f}</td><td>{nd:.3f}</td></tr>")
    return ('<table class="lb"><thead><tr><th>rank</th><th>layer</th><th>head</th><th>rule mass</th>'
            "<th>retrieval score</th><th>needle-line mass</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def build_html(view: AttentionView) -> str:
    css = _asset("report.css") + _CSS
    csp = f"default-src 'none'; style-src {_sha256(css)}; img-src data:; base-uri 'none'; form-action 'none'"
    title = f"Rule-focused attention · {view.item_key}"
    png = ""
    if matplotlib_missing() is None:
        png = (f'<figure class="heatmap"><img alt="layer x head rule-attention heat map" '
               f'src="data:image/png;base64,{_png(figure(view))}"></figure>')
    n_layers, n_heads = view.shape
    meta = [("item", f"korbench {view.item_key} (zero-shot prompt)"), ("model", view.model),
            ("answer", view.answer_source + (" (cut to the first tokens)" if view.answer_truncated else "")),
            ("tokens", f"{len(view.input_ids)} ({', '.join(f'{n} {e - s}' for n, (s, e) in view.spans.items())})"),
            ("layers x heads", f"{n_layers} x {n_heads}"),
            ("max |attention row sum - 1|", f"{view.row_sum_error:.2e}")]
    heads = "".join(f"<h3>#{k} layer {layer} head {head} · rule mass {view.mass[layer, head]:.3f}</h3>"
                    + shaded_rule(view, layer, head) for k, (layer, head) in enumerate(view.top, 1))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">
<meta name="referrer" content="no-referrer">
<title>{esc(title)}</title>
<style>{css}</style>
</head><body>
<header><h1>{esc(title)}</h1>
<p class="sub">KOR-Bench App. F.3 / H · generated {esc(time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))}
by reasoneval {esc(__version__)}</p></header>
<main>
<table class="meta">{"".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in meta)}</table>
<p class="note">Rule mass: mean over the answer tokens of the attention they put on the rule (one forward pass,
eager attention). Retrieval score (Wu et al. 2024): share of answer tokens whose most attended key, from the
position predicting them, is the same token inside the rule. Needle lines (underlined) hold the item's needle
sentences. Top heads are ranked by rule mass; the paper does not publish its head selection.</p>
<section><h2>Heat map</h2>{png or '<p class="note">matplotlib is not installed: no heat map image.</p>'}
{_heads_table(view)}</section>
<section><h2>Rule text, shaded per top head</h2>{heads}</section>
<section><h2>Question</h2><div class="ruletext">{esc(view.span_text("question"))}</div>
<h2>Answer</h2><div class="ruletext">{esc(view.span_text("answer"))}</div></section>
</main></body></html>
"""


def write(view: AttentionView, path: Path) -> None:
    """``.png``: the figure; anything else: the HTML page."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".png":
        write_png(view, path)
    else:
        path.write_bytes(build_html(view).encode("utf-8", "backslashreplace"))
