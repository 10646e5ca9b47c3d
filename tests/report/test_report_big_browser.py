"""A 62-run report in headless Chromium: the page is small, opens without decoding any item text, and a run's
texts are loaded only when one of its items is opened (side files past the embed limit; embedded chunks below).
Sizes and times at full scale (62 x 1,234 items): ``python bench/report_scale.py --runs 62 --items 76500``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect, item_chunks
from reasoneval.report.collect import RunView
from reasoneval.report.html_page import write_html

pytestmark = pytest.mark.browser
RUNS, ITEMS = 62, 40
CATS = ("operation", "logic", "cipher", "puzzle", "counterfactual")


def _views() -> list[RunView]:
    rng = random.Random(7)
    views = []
    for k in range(RUNS):
        rows = []
        for j in range(ITEMS, 0, -1):  # stored in reverse: the page must list them in natural id order
            cat = CATS[j % 5]
            key = f"{cat}/{j}"
            text = " ".join(rng.choice(("rule", "step", "shift", "grid")) for _ in range(150))
            text += f" marker-{k:02d}-{key} [[{j}]]"
            ok = rng.random() < 0.2 + 0.6 * k / RUNS
            rows.append(ScoredRow(key, cat, 0, [Turn(Prompt.chat(f"rule of {cat}\n\nquestion {j}"),
                                                     Completion(text, "stop", Usage(300, 200)),
                                                     Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(j),
                                                             "m", {"gold": str(j)}))]))
        run = {"run_id": f"big{k:02d}", "model": f"openai/model-{k:02d}", "benchmark": "bigtoy", "subset": None,
               "mode": "zero-shot" if k % 2 == 0 else "three-shot", "status": "done", "spec": {}}
        views.append(RunView(run, rows, [Table("bigtoy", ["Overall"], [[50.0]])], collect.run_stats(rows)))
    return views


def _open(browser: Any, path: Path) -> tuple[Any, Any, list[str], list[str]]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    return ctx, page, requests, errors


def _rows(page: Any) -> list[list[str]]:
    page.wait_for_selector("body:not([data-busy])", timeout=30_000)
    return page.eval_on_selector_all("#item-rows tr.item", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")


def test_big_report_with_side_files_loads_texts_on_demand(browser: Any, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reasoneval.report.html_page.make_plots", lambda views: ([], []))
    monkeypatch.setattr(item_chunks, "EMBED_LIMIT", 0)  # every run's texts a side file, as at full scale
    out = tmp_path / "big report.html"  # a space: the side folder's URL is encoded
    side = write_html(_views(), out)
    assert len(side) == RUNS + 1 and side[0].parent == tmp_path / "big report_items"  # + the shared prompts
    assert sorted(f.name for f in side if not f.name.startswith("run-")) == ["shared.js"]
    assert out.stat().st_size < 400_000 and "marker-" not in out.read_text()
    ctx, page, requests, errors = _open(browser, out)
    try:
        assert not [u for u in requests if "_items/" in u]  # nothing but the page was read to open it
        # leaderboard: one ranking per protocol, never mixed
        heads = page.locator("#leaderboard h4").all_inner_texts()
        assert sum(h.startswith("Runs · zero-shot protocol") for h in heads) == 1
        assert sum(h.startswith("Runs · three-shot protocol") for h in heads) == 1
        ov = page.locator("table.overview")
        assert ov.nth(0).locator("tbody tr").count() == ov.nth(1).locator("tbody tr").count() == RUNS // 2
        rows = _rows(page)
        assert len(rows) == 50 and f"of {RUNS * ITEMS} items" in page.inner_text("#item-count")
        # natural id order within the first run: cipher/2, cipher/7 before cipher/12 (stored in reverse)
        keys = [r[1] for r in rows if r[0] == "model-00"]
        assert keys[:3] == ["cipher/2", "cipher/7", "cipher/12"]
        # drill-down: opening an item of run 7 loads run 7's texts, and only those
        page.select_option("#f-run", "7")
        page.click("#item-rows tr.item >> nth=0")
        page.wait_for_selector("#item-rows tr.detail pre.text", timeout=30_000)
        loaded = [u for u in requests if "_items/" in u]  # run 7's texts and the prompts all runs share
        assert sorted(u.rsplit("/", 1)[1] for u in loaded) == ["run-7.js", "shared.js"]
        assert all("big%20report_items/" in u for u in loaded)
        assert "marker-07-cipher/2 [[2]]" in page.inner_text("#item-rows tr.detail")
        # the same item in every run, from the index (no other run's texts loaded): differences marked
        across = page.eval_on_selector_all("#item-rows tr.detail table.across tr:not(:first-child)",
                                           "rs => rs.map(r => [r.className.trim(), ...[...r.cells].map(c => c.textContent)])")
        assert len(across) == RUNS and [r for r in across if r[0].startswith("self")][0][2] == "model-07"
        own = next(r for r in across if r[0].startswith("self"))
        for r in across:
            assert ("differs" in r[0]) == (r[4] != own[4] or r[5] != own[5]) and (r[1] == "≠") == ("differs" in r[0])
        assert 0 < sum("differs" in r[0] for r in across) < RUNS
        assert len([u for u in requests if "_items/" in u]) == 2
        # compare the two completions: run 12's texts are loaded, its words that run 7 lacks are marked
        page.locator("#item-rows tr.detail table.across tr", has_text="model-12").locator("button").click()
        page.wait_for_selector("#item-rows .compare mark", timeout=30_000)
        marks = page.locator("#item-rows .compare mark").all_inner_texts()
        assert "marker-12-cipher/2" in " ".join(marks) and not any("marker-07" in m for m in marks)
        sides = page.locator("#item-rows .compare pre.text").all_inner_texts()
        assert sides[0].endswith("marker-07-cipher/2 [[2]]") and sides[1].endswith("marker-12-cipher/2 [[2]]")
        assert page.locator("#item-rows .compare pre.text").nth(0).locator("mark").count() == 0
        assert len([u for u in requests if "_items/" in u]) == 3  # run 12's; the shared prompts not again
        # a full-text search loads the texts of the runs in view (all of them), then finds the one item
        page.select_option("#f-run", "")
        page.fill("#f-search", "marker-41-puzzle/18 ")
        page.press("#f-search", "Enter")
        rows = _rows(page)
        assert [(r[0], r[1]) for r in rows] == [("model-41", "puzzle/18")]
        assert len({u for u in requests if "_items/run-" in u}) == RUNS
        assert errors == []
    finally:
        ctx.close()
    # without the side folder the page still opens and says what is missing when an item is opened
    for f in side:
        f.unlink()
    ctx, page, requests, errors = _open(browser, out)
    try:
        page.click("#item-rows tr.item >> nth=0")
        page.wait_for_selector("#item-rows tr.detail p.note:not(.loading)", timeout=30_000)
        assert "keep the folder big report_items beside this page" in page.inner_text("#item-rows tr.detail")
    finally:
        ctx.close()


def test_embedded_report_decodes_a_run_only_when_opened(browser: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reasoneval.report.html_page.make_plots", lambda views: ([], []))
    out = tmp_path / "small.html"
    (tmp_path / "small_items").mkdir()
    (tmp_path / "small_items" / "run-9.js").write_text("stale")  # an earlier, larger report's chunks
    assert write_html(_views()[:3], out) == []  # below the limit: one self-contained file
    assert not (tmp_path / "small_items").exists()
    ctx, page, requests, errors = _open(browser, out)
    try:
        # the texts are in the page, compressed: not in the DOM as text until an item is opened
        assert "marker-00" not in page.evaluate("document.body.innerText")
        page.click("#item-rows tr.item >> nth=0")
        page.wait_for_selector("#item-rows tr.detail pre.text", timeout=30_000)
        assert "marker-00-cipher/2 [[2]]" in page.inner_text("#item-rows tr.detail")
        assert all(u.startswith(("file:", "data:")) for u in requests) and len(requests) == 1
        assert errors == []
    finally:
        ctx.close()
