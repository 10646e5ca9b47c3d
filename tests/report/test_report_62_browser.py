"""The HTML report of 62 runs of the release's shape (``report --html``, the one assembly) in headless Chromium:
the main tables only by default (per-rule tables named as left out), every paper comparison on the cells, the
dated snapshot "not compared", the incomplete run marked and ranked last, and with ``--tables all`` the per-rule
tables collapsed. Skipped (with the reason printed) when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from release_shape import fill_release_shape
from typer.testing import CliRunner

from reasoneval.cli import app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("r62")
    ids = fill_release_shape(d / "runs.db")
    out = {}
    for name, extra in (("main", []), ("all", ["--tables", "all"])):
        page = d / f"{name}.html"
        res = CliRunner().invoke(app, ["report", *ids, "--store", str(d / "runs.db"), "--html", str(page), *extra])
        assert res.exit_code == 0, res.output
        assert res.stdout == ""  # --html alone prints no tables
        out[name] = page
    return out


def _open(browser: Any, page: Path) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    p = ctx.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto(page.as_uri())
    p.wait_for_selector("body[data-ready]", timeout=60_000)
    return ctx, p, errors


def test_62_runs_main_tables_with_paper_values(browser: Any, pages: dict[str, Path]) -> None:
    ctx, p, errors = _open(browser, pages["main"])
    lb = p.locator("#leaderboard")
    text = lb.inner_text()
    assert "table(s) not shown (rules)" in text  # the per-rule tables are named, not shown
    assert lb.locator("details.rules").count() == 0
    # Table 2 (zero-shot): 38 rows, the published values on the cells of matched models
    t2 = lb.locator(".tablewrap", has=p.locator("h4", has_text="korbench (zero-shot)")).first
    assert t2.locator("tbody tr").count() == 38
    claude = t2.locator("tbody tr", has_text="Claude-3.5-sonnet-20240620").first
    assert "paper 58.96" in claude.inner_text()
    snap = t2.locator("tbody tr", has_text="gpt-4o-2024-08-06").first
    assert snap.locator("td.cmpcell").count() == 0  # a dated snapshot is never compared with another date
    # the runs overview of the base models: the run without Counterfactual marked and last
    ov = lb.locator("table.overview").nth(1)
    last = ov.locator("tbody tr").last
    assert "Meta-Llama-3-70B" in last.inner_text() and "incomplete" in last.inner_text()
    height = p.evaluate("document.documentElement.scrollHeight")
    assert height < 40_000, height  # the page is the leaderboard and plots, not 4,650 rule rows
    assert errors == []
    ctx.close()


def test_62_runs_rule_tables_collapsed(browser: Any, pages: dict[str, Path]) -> None:
    ctx, p, errors = _open(browser, pages["all"])
    rules = p.locator("details.rules")
    assert rules.count() == 4  # per rule and per tag, for each protocol
    assert all(not rules.nth(i).evaluate("d => d.open") for i in range(rules.count()))
    closed = p.evaluate("document.documentElement.scrollHeight")
    rules.first.locator("summary").click()
    assert rules.first.evaluate("d => d.open")
    assert p.evaluate("document.documentElement.scrollHeight") > closed + 10_000  # 62 x 125 rule rows
    assert errors == []
    ctx.close()
