"""The HTML report in headless Chromium: leaderboard, filters, search, and hostile model text stays text.

Skipped (with the reason printed) when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_fixtures import HOSTILE, HOSTILE_GOLD

pytestmark = pytest.mark.browser


class Watched:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        self.requests: list[str] = []

        def on_dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", on_dialog)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("request", lambda r: self.requests.append(r.url))


@pytest.fixture
def page(browser: Any, report_file: Path) -> Iterator[Watched]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    w = Watched(ctx.new_page())
    w.page.goto(report_file.as_uri())
    w.page.wait_for_selector("body[data-ready]", timeout=20_000)
    yield w
    ctx.close()
    # nothing fired, nothing failed, nothing was blocked, nothing was fetched
    assert w.dialogs == [], w.dialogs
    assert w.errors == [], w.errors
    assert not [m for m in w.console if "Content Security Policy" in m or m.startswith("error")], w.console
    assert all(u.startswith(("file:", "data:")) for u in w.requests), w.requests


def visible_items(page: Any) -> list[dict[str, str]]:
    page.wait_for_selector("body:not([data-busy])", timeout=20_000)  # texts decoded on demand (a search)
    return page.eval_on_selector_all(
        "#item-rows tr.item",
        "rows => rows.map(r => ({key: r.cells[1].textContent, subset: r.cells[2].textContent, "
        "rule: r.cells[3].textContent, verdict: r.cells[4].textContent}))")


def test_leaderboard_renders(page: Watched) -> None:
    p = page.page
    lb = p.locator("#leaderboard")
    assert lb.locator("table.lb").count() >= 4  # 2 overviews + 3 benchmark tables
    text = lb.inner_text()
    for s in ("htmltoy", "korbench", "toy-model", "other-model", "gpt-4o", "63.16"):  # display names
        assert s in text
    # KOR-Bench Table 2 with the published GPT-4o-2024-05-13 row beside ours
    cells = lb.locator("td.cmpcell")
    assert cells.count() == 6
    op = cells.nth(1).inner_text()
    assert "84.00" in op and "paper 86.00" in op and "Δ -2.00" in op
    assert "GPT-4o-2024-05-13" in text
    # plots are inline data: images (when matplotlib is installed) or the page says why not
    imgs = p.locator("#plots img")
    if imgs.count() == 0:
        assert "matplotlib" in p.locator("#plots").inner_text()
    for i in range(imgs.count()):
        assert imgs.nth(i).get_attribute("src").startswith("data:image/png;base64,")
        assert p.evaluate("i => document.querySelectorAll('#plots img')[i].naturalWidth", i) > 0
    # sortable: clicking "accuracy" in an overview sorts its rows
    ov = lb.locator("table.overview").first
    ov.locator("th", has_text="accuracy").click()
    ov.locator("th", has_text="accuracy").click()
    accs = [float(x) for x in ov.locator("tbody tr td:nth-child(5)").all_inner_texts()]
    assert accs == sorted(accs)


def test_filters_and_search(page: Watched) -> None:
    p = page.page
    assert len(visible_items(p)) == 50  # first page of 55
    assert "of 55 items" in p.inner_text("#item-count")
    p.click("#p-next")
    assert len(visible_items(p)) == 5
    p.click("#p-prev")

    p.select_option("#f-verdict", "error")
    rows = visible_items(p)
    assert [r["key"] for r in rows] == ["beta/8"] and rows[0]["verdict"] == "error"
    p.select_option("#f-verdict", "unanswerable")
    assert [r["key"] for r in visible_items(p)] == ["alpha/5"]
    p.select_option("#f-verdict", "")

    p.select_option("#f-subset", "beta")
    rows = visible_items(p)
    assert len(rows) == 8 and {r["subset"] for r in rows} == {"beta"}
    p.select_option("#f-verdict", "correct")
    rows = visible_items(p)
    assert 0 < len(rows) < 8 and {r["verdict"] for r in rows} == {"correct"}
    p.select_option("#f-verdict", "")
    p.select_option("#f-subset", "")

    # rule filter: KOR-Bench items carry rule = ceil(id / 10)
    p.select_option("#f-bench", "korbench")
    assert len(visible_items(p)) == 25
    p.select_option("#f-rule", "2")
    rows = visible_items(p)
    assert len(rows) == 10 and {r["rule"] for r in rows} == {"2"}
    assert {r["key"].split("/")[1] for r in rows} == {"11", "12"}
    p.select_option("#f-subset", "cipher")
    assert [r["key"] for r in visible_items(p)] == ["cipher/11", "cipher/12"]
    p.select_option("#f-bench", "")
    p.select_option("#f-subset", "")
    p.select_option("#f-rule", "")
    assert len(visible_items(p)) == 50

    # run filter
    p.select_option("#f-run", "1")
    assert len(visible_items(p)) == 10
    p.select_option("#f-run", "")

    # search: completion text, prompt text (deduplicated segments), answer text
    p.fill("#f-search", "onerror=alert(2)")
    p.press("#f-search", "Enter")
    assert [r["key"] for r in visible_items(p)] == ["alpha/3"]
    p.fill("#f-search", "Please re-check")  # only in the self-correction follow-up prompts
    p.press("#f-search", "Enter")
    rows = visible_items(p)
    assert rows and {r["key"].split("/")[0] for r in rows} == {"alpha"}
    assert p.inner_text("#item-count").split(" of ")[1].startswith("7 items")
    p.fill("#f-search", "no such text anywhere")
    p.press("#f-search", "Enter")
    assert visible_items(p) == [] and "no items match" in p.inner_text("#item-count")


def test_hostile_completion_is_text(page: Watched) -> None:
    p = page.page
    p.fill("#f-search", "onerror")
    p.press("#f-search", "Enter")
    rows = visible_items(p)
    assert [r["key"] for r in rows] == ["alpha/3"]
    p.click("#item-rows tr.item")
    p.wait_for_selector("#item-rows tr.detail pre.text", timeout=20_000)  # the run's texts, decoded on demand
    detail = p.locator("#item-rows tr.detail")
    assert detail.count() == 1
    pres = detail.locator("pre.text").all_text_contents()
    assert HOSTILE in pres  # the full completion, verbatim, as text
    assert HOSTILE_GOLD in pres  # gold answer from verdict.detail["gold"]
    assert "</script><b>x</b>" in pres  # extracted answer
    assert any('"note": "<img src=y onerror=alert(4)>"' in t for t in pres)  # scoring detail
    p.locator("#item-rows tr.detail details.prompt > summary").click()
    assert "### Rule:" in detail.inner_text()
    p.wait_for_timeout(300)  # give any injected handler a chance to fire
    # nothing the model wrote became an element
    for sel in ("#items img", "#items script", "#items b", "#items iframe"):
        assert p.locator(sel).count() == 0, sel
    # the whole document: only the one script written by the report runs (the rest are data blocks), only
    # data: PNG images
    assert p.evaluate("[...document.scripts].filter(s => !s.type).length") == 1
    assert p.evaluate("[...document.scripts].every(s => !s.type || s.type === 'application/octet-stream')")
    assert p.evaluate("[...document.images].every(i => i.src.startsWith('data:image/png;base64,'))")
    assert p.evaluate("typeof window.alert") == "function"


def test_plots_screenshot_fit_the_page(page: Watched, tmp_path: Path) -> None:
    """Every plot, as the browser draws it: decoded, inside the viewport width, and screenshot-able (the
    accuracy-vs-tokens plot carries its run key beside the axes, not labels on top of each other)."""
    p = page.page
    imgs = p.locator("#plots img")
    if imgs.count() == 0:
        pytest.skip("matplotlib missing: no plots")
    for i in range(imgs.count()):
        img = imgs.nth(i)
        img.scroll_into_view_if_needed()
        box = img.bounding_box()
        assert box is not None and box["width"] > 100 and box["x"] + box["width"] <= 1280 + 1
        shot = tmp_path / f"plot-{i}.png"
        img.screenshot(path=str(shot))
        assert shot.stat().st_size > 1000
    caps = p.locator("#plots").inner_text()
    assert "Points are numbered; the key beside the plot names each run." in caps  # captions shown with the plots
