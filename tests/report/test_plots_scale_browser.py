"""The report's plots for 1, 8 and 60 models, measured in headless Chromium as a reader sees them.

Each model has the runs every plot draws from (``report_runs.py`` here: KOR-Bench zero-shot, trick,
self-correction, sub-steps; FineReason state checking), stored through ``RunStore`` and read back with
``collect.view``, so 60 models are ~300 runs. For every plot image in the page, with the browser's own scale
(rendered size over the PNG's size) applied to the layout the figure recorded (``data-layout``):

* every data area is at least 200 px high on the page;
* no legend or run key overlaps a data area;
* the labels of each axis, legend, key and the point labels are unique, at least 8 px high on the page, inside
  the image and not on top of each other;
* the image is not scaled down (nothing shrinks to a strip) and fits the 1400 px page.

Before this (plots as of issue 27), at 8 runs the legends sat inside the bars, and at 37 runs the category bars
and self-correction plots were ~20 px high.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from report_runs import fill_models

from reasoneval.report import collect
from reasoneval.store.sqlite import RunStore

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.browser

MIN_AREA_PX = 200
MIN_FONT_PX = 8.0


def _intersect(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _report(tmp: Path, n: int) -> Path:
    from reasoneval.report.html_page import write_html

    store = tmp / f"runs{n}.db"
    ids = fill_models(store, n)
    st = RunStore(store, readonly=True)
    views = [collect.view(st, r, prompts=False) for r in ids]
    st.close()
    out = tmp / f"report{n}.html"
    write_html(views, out)
    return out


def problems(fig: dict[str, Any]) -> list[str]:
    """What a reader cannot read in one drawn plot (its layout scaled to the page)."""
    lay, s, key = fig["layout"], fig["scale"], fig["key"]
    out = []
    if s < 0.999:
        out.append(f"{key}: scaled down to {s:.2f} ({fig['width']:.0f} of {lay['w']} px)")
    if fig["right"] > 1400:
        out.append(f"{key}: reaches x={fig['right']:.0f}, past the 1400 px page")
    for a in lay["axes"]:
        if (a[3] - a[1]) * s < MIN_AREA_PX:
            out.append(f"{key}: a data area {(a[3] - a[1]) * s:.0f} px high")
        for lg in lay["legends"]:
            if _intersect(a, lg):
                out.append(f"{key}: a legend/key box {lg} overlaps the data area {a}")
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for lab in lay["labels"]:
        groups[lab["g"]].append(lab)
        if lab["px"] * s < MIN_FONT_PX:
            out.append(f"{key}: label {lab['t']!r} is {lab['px'] * s:.1f} px high")
        b = lab["b"]
        if b[0] < -1 or b[1] < -1 or b[2] > lay["w"] + 1 or b[3] > lay["h"] + 1:
            out.append(f"{key}: label {lab['t']!r} is cut off at the image edge {b}")
    for g, labs in groups.items():
        texts = [lab["t"] for lab in labs]
        dup = sorted({t for t in texts if texts.count(t) > 1})
        if dup:
            out.append(f"{key}: {g} repeats the labels {dup[:3]}")
        boxes = [lab["b"] for lab in labs if "line" not in lab]  # a key's lines share the key's box
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                if _intersect(boxes[i], boxes[j], slack=1.0):
                    out.append(f"{key}: {g} labels {labs[i]['t']!r} and {labs[j]['t']!r} overlap")
    return out


def measured(browser: Any, html: Path) -> list[dict[str, Any]]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    figs = page.eval_on_selector_all("#plots figure.plot img", """imgs => imgs.map(i => {
        const r = i.getBoundingClientRect();
        return {key: i.closest('figure').id, layout: i.dataset.layout || null, natural: i.naturalWidth,
                naturalH: i.naturalHeight, width: r.width, height: r.height, right: r.right + window.scrollX};
    })""")
    ctx.close()
    assert errors == [], errors
    for f in figs:
        assert f["layout"], f"{f['key']}: no data-layout"
        f["layout"] = json.loads(f["layout"])
        assert f["natural"] == f["layout"]["w"] and f["naturalH"] == f["layout"]["h"], f["key"]
        f["scale"] = f["width"] / f["natural"]
    return figs


EXPECTED = {"plot-categories-korbench-zero-shot", "plot-heatmap-korbench-zero-shot", "plot-self-correction",
            "plot-real-life-rate", "plot-korbench-trick", "plot-korbench-substeps", "plot-depth",
            "plot-finereason-empty-cells", "plot-finereason-empty-cells-density", "plot-state-checking-pr",
            "plot-acc-vs-tokens-korbench-zero-shot"}


@pytest.mark.parametrize("n", [1, 8, 60])
def test_plots_readable_at_n_models(browser: Any, tmp_path: Path, n: int) -> None:
    figs = measured(browser, _report(tmp_path, n))
    assert EXPECTED <= {f["key"] for f in figs}, sorted(f["key"] for f in figs)
    bad = [p for f in figs for p in problems(f)]
    assert bad == [], "\n".join(bad[:30])
    by = {f["key"]: f for f in figs}
    # the heat map and the bars have one row per model (the zero-shot protocol: n models, 2 more runs past 4)
    rows = [lab for lab in by["plot-heatmap-korbench-zero-shot"]["layout"]["labels"] if lab["g"] == "axes0-y"]
    assert len(rows) == n + (2 if n > 4 else 0)
    if n > 4:  # the same model behind two ports and with another scoring option: told apart, endpoint-free name
        texts = [lab["t"] for lab in rows]
        assert "Llama-3.1-0.5B-Instruct (127.0.0.1:18901)" in texts
        assert "Mistral-0.5B-Instruct (corrected)" in texts and "Mistral-0.5B-Instruct (official)" in texts
        assert not [t for t in texts if "openai-compat" in t or "http" in t]


def test_problems_sees_the_old_defects() -> None:
    """The checks catch what issue 27 saw: a legend inside the bars, a 20 px strip, cut labels that collide."""
    lay = {"w": 900, "h": 300, "axes": [[50, 40, 880, 60]], "legends": [[700, 45, 870, 58]],
           "labels": [{"t": "openai-compat/Qwen2…18931/v1", "px": 9.3, "b": [0, 41, 48, 50], "g": "legend0"},
                      {"t": "openai-compat/Qwen2…18931/v1", "px": 9.3, "b": [0, 45, 48, 54], "g": "legend0"}]}
    got = problems({"layout": lay, "scale": 1.0, "key": "old", "width": 900, "right": 950})
    assert any("20 px high" in p for p in got)
    assert any("overlaps the data area" in p for p in got)
    assert any("repeats the labels" in p for p in got) and any("overlap" in p and "labels" in p for p in got)
    assert problems({"layout": {**lay, "axes": [], "legends": [], "labels": []}, "scale": 0.5, "key": "k",
                     "width": 450, "right": 500}) == ["k: scaled down to 0.50 (450 of 900 px)"]
