"""The HTML report without a browser: escaping, CSP hashes, paper comparison, metadata, CLI wiring."""

from __future__ import annotations

import base64
import hashlib
import html as htmllib
import json
import re
import sys
from pathlib import Path

import pytest
from report_fixtures import HOSTILE, HOSTILE_GOLD, korbench_view

from reasoneval.benchmarks.korbench import table_kinds
from reasoneval.benchmarks.korbench.report import TABLE2_COLUMNS, set_column
from reasoneval.core.benchmark import Cell, Column, ScoredRow, Table, TableKind, Turn
from reasoneval.core.values import Completion, Message, Prompt, Usage
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.html_page import build_html, json_for_script, write_html
from reasoneval.report.item_chunks import page_data


@pytest.fixture
def no_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leaderboard / data tests need no plots: skip matplotlib rendering for speed."""
    monkeypatch.setattr("reasoneval.report.html_page.make_plots", lambda views: ([], []))


def blob(doc: str) -> dict:
    """The page's item data as the browser decodes it: the index plus every run's text chunk."""
    return page_data(doc)


def completion_text(data: dict, item: list) -> str:
    chunk = data["chunks"][item[0]]
    completion = chunk["turns"][item[10]][-1][1]
    return completion if isinstance(completion, str) else "\n\n".join(
        chunk["strs"][p] if isinstance(p, int) else p for p in completion)


def test_json_for_script_escapes_and_round_trips() -> None:
    obj = {"t": "</script><script>alert(1)</script> & <!-- \u2028\u2029 \\u003c", "n": [1, 2.5, None]}
    s = json_for_script(obj)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in s
    assert json.loads(s) == obj


def test_document_structure_and_csp(report_file: Path) -> None:
    doc = report_file.read_text(encoding="utf-8")
    # one script runs (ours); the item data are base64 blocks the browser never executes
    assert doc.count("<script>") == 1 and doc.count("<script") == doc.count("</script")
    blocks = re.findall(r"<script ([^>]*)>([^<]*)</script>", doc)
    assert len(blocks) == doc.count("<script") - 1 == 5  # the index, the shared prompts + a text chunk per run
    assert all(a.startswith('type="application/octet-stream" id="') and re.fullmatch(r"[A-Za-z0-9+/=]+", b)
               for a, b in blocks)
    for raw in ("<img src=x", "<script>alert", "<b>x</b>", "<img src=y"):
        assert raw not in doc, raw
    assert doc.count("<img") == doc.count('<img alt="')  # only our plots
    for m in re.finditer(r"<img [^>]*>", doc):
        assert 'src="data:image/png;base64,' in m.group(0)
    # the CSP allows exactly our inline script and style (by hash), images from data: only
    csp = htmllib.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', doc).group(1))
    assert "default-src 'none'" in csp and "img-src data:" in csp and "unsafe-inline" not in csp
    script = re.search(r"<script>(.*?)</script>", doc, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", doc, re.S).group(1)
    for directive, text in (("script-src", script), ("style-src", style)):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in csp
    assert "http://" not in doc.replace("http-equiv", "") and "https://" not in doc  # nothing to fetch
    # the hostile texts travel only inside the JSON blob, escaped, and come back intact
    data = blob(doc)
    item = next(i for i in data["items"] if i[1] == "alpha/3" and data["runs"][i[0]]["id"] == "run_zero_1")
    assert completion_text(data, item) == HOSTILE
    assert item[7] == HOSTILE_GOLD and item[6] == "</script><b>x</b>"
    assert item[5] == "incorrect"


def test_item_data_dedup_rules_and_gold(all_views: list[RunView], no_plots: None) -> None:
    data = blob(build_html(all_views, load_items=False))
    assert len(data["items"]) == 55
    # the shared rule text is stored once in the page (the runs share their prompts' segments), not once per
    # prompt or per run; the toy runs' prompts refer to it, the KOR view's do not
    strs = data["chunks"][0]["strs"]
    rule = [k for k, s in enumerate(strs) if s.startswith("### Rule:")]
    assert len(rule) == 1
    for ri, chunk in enumerate(data["chunks"]):
        assert chunk["strs"] is strs
        refs = {p for turns in chunk["turns"] for t in turns for _, text in t[0] if isinstance(text, list)
                for p in text}
        assert (rule[0] in refs) == (ri < 2), ri
    kor = {i[1]: i for i in data["items"] if data["runs"][i[0]]["benchmark"] == "korbench"}
    assert kor["operation/1"][4] == "1" and kor["cipher/12"][4] == "2" and kor["puzzle/25"][4] == "3"
    toy = [i for i in data["items"] if data["runs"][i[0]]["benchmark"] == "htmltoy"]
    assert all(i[4] is None for i in toy)  # no rule ids there
    sc = [i for i in data["items"] if data["runs"][i[0]]["id"] == "run_sc_2"]
    assert max(i[8] for i in sc) == 3 and max(len(data["chunks"][i[0]]["turns"][i[10]]) for i in sc) == 3


def test_leaderboard_paper_comparison(report_file: Path) -> None:
    doc = report_file.read_text(encoding="utf-8")
    assert "KOR-Bench Table 2 (zero-shot)" in doc
    assert "paper 86.00" in doc and "Δ -2.00" in doc  # Operation: ours 84.00, GPT-4o-2024-05-13 86.00
    assert "paper 92.00 (4.80)" in doc and "Δ -2.00 (+1.20)" in doc  # Counterfactual with real-life rate
    assert "Paper numbers: openai/gpt-4o → GPT-4o-2024-05-13, KOR-Bench Table 2 (chat, zero-shot)" in doc


def kor_table(title: str, cols: list[str], row: list, kind: TableKind = TableKind.LEADERBOARD) -> Table:
    return Table(title, cols, [row], kind=kind)


def view_with(table: Table, model: str, mode: str = "zero-shot", subset: str | None = None,
              limit: int | None = None) -> RunView:
    v = korbench_view(model, mode)
    v.run["subset"] = subset
    v.run["spec"]["limit"] = limit
    return RunView(v.run, v.rows, [table], v.stats)


def test_comparison_with_korbench_summarize_layout(no_plots: None) -> None:
    """The KOR-Bench benchmark's own tables: title without 'Table 2', typed cells, '-' for absent."""
    t2 = kor_table("korbench (zero-shot, official scoring)", list(TABLE2_COLUMNS),
                   [Cell(38.0), Cell(55.0), "-", "-", "-", "-"])
    doc = build_html([view_with(t2, "hf/Qwen/Qwen2.5-7B-Instruct", subset="operation", limit=5)],
                     load_items=False)
    assert doc.count('class="num cmpcell"') == 1  # Operation only: Overall skipped for a one-subset run
    assert "paper 55.60" in doc and "Δ -0.60" in doc
    assert "Only subset operation was run" in doc and "--limit 5" in doc
    # base model, three-shot: Table 2's base half
    doc = build_html([view_with(t2, "vllm/meta-llama/Meta-Llama-3.1-8B", mode="three-shot")], load_items=False)
    assert "paper 14.00" in doc and "Table 2 (base, three-shot)" in doc
    # a chat model run three-shot, or a self-correction run: same layout, not the paper's setting
    for model, mode in (("openai/gpt-4o", "three-shot"), ("openai/gpt-4o", "self-correction")):
        doc = build_html([view_with(t2, model, mode=mode)], load_items=False)
        assert 'class="num cmpcell"' not in doc and "not compared" in doc
    # Table 3 (mixed): accuracy (pass rate) cells
    t3 = kor_table("korbench (mixed)", [Column("Overall", "overall"), *map(set_column, ("Multi-Q", "Multi-R", "Multi-RQ"))],
                   [Cell(20.0, 30.0), Cell(15.0, 25.0), Cell(30.0), Cell(19.0, 31.0)], table_kinds.MIXED)
    doc = build_html([view_with(t3, "claude-3-5-sonnet-20240620", mode="mixed")], load_items=False)
    assert doc.count('class="num cmpcell"') == 4
    assert "paper 31.37 (43.24)" in doc and "Δ -11.37 (-13.24)" in doc and "paper 45.20" in doc
    # no paper row for the model: plain table
    doc = build_html([view_with(t2, "llamacpp/default")], load_items=False)
    assert 'class="num cmpcell"' not in doc and "Paper numbers" not in doc


def test_paper_values_come_from_typed_cells(no_plots: None) -> None:
    """The report reads the numbers a cell holds, never its text; the benchmark finds the paper's column by the
    column's id, whatever its label says."""
    from reasoneval.benchmarks.korbench import paper_compare

    cols = [Column("all", "overall"), Column("ops (%)", "operation"), Column("cf", "counterfactual")]
    t = Table("whatever", cols, [[Cell(50.0), Cell(90.0, 5.0), "90.00 (5.00)"]], kind=TableKind.LEADERBOARD)
    run = {"model": "openai/gpt-4o", "mode": "zero-shot", "subset": None, "spec": {}}
    got = paper_compare.with_paper(t, [run])
    overall, op, text = got.rows[0]
    assert (overall.paper, overall.delta) == (58.0, -8.0)
    assert (op.paper, op.paper_secondary) == (86.0, None)  # Operation has no secondary value in the paper
    assert text == "90.00 (5.00)" and not isinstance(text, Cell)  # text is never parsed
    assert got.rows[0] == ["50.00", "90.00 (5.00)", "90.00 (5.00)"]  # cells read as they did
    assert "Paper numbers: openai/gpt-4o → GPT-4o-2024-05-13" in got.notes[-1]
    cf = paper_compare.with_paper(Table("t", cols, [["-", "-", Cell(90.0, 5.0)]], kind=TableKind.LEADERBOARD),
                                  [run]).rows[0][2]
    assert (cf.paper, cf.paper_secondary, cf.delta, cf.delta_secondary) == (92.0, 4.8, -2.0, 5.0 - 4.8)
    # a one-subset run: Overall is left alone; a table of another kind: unchanged
    part = paper_compare.with_paper(t, [{**run, "subset": "operation"}]).rows[0]
    assert part[0].paper is None and part[1].paper == 86.0
    rounds = Table("KOR-Bench Table 2", cols, t.rows, kind=table_kinds.SELF_CORRECTION_ROUNDS)
    assert paper_compare.with_paper(rounds, [run]) is rounds
    doc = build_html([view_with(t, "openai/gpt-4o")], load_items=False)
    assert doc.count('class="num cmpcell"') == 2 and "paper 58.00" in doc and "Δ -8.00" in doc


def test_runs_metadata(report_file: Path) -> None:
    doc = report_file.read_text(encoding="utf-8")
    runs = doc[doc.index('<section id="runs">'):]
    for s in ("run_zero_1", "run_sc_2", "kor_run_3", "package version", "data version", "toy-v1",
              "prompt version", "toy-p1", "max_tokens", "seed", "created", "UTC", "prompt tokens",
              "completion tokens", "extraction failure rate", "5.00%", "errors"):
        assert s in runs, s


def test_without_matplotlib(all_views: list[RunView], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    doc = build_html(all_views, load_items=False)
    assert "Plots skipped: matplotlib is not installed" in doc
    assert "<img" not in doc
    assert 'id="item-rows"' in doc and "paper 86.00" in doc


def test_lone_surrogates_and_odd_content(tmp_path: Path) -> None:
    bad = "broken \udcff text \u2028 end"
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "http://evil.example/x"}}]
    rows = [ScoredRow("s/1", "s", 0, [Turn(Prompt(messages=(Message("user", parts),)),
                                           Completion(bad, "length", Usage(1, 2)), None)])]
    run = {"run_id": "r\u2028<x>", "model": "m<script>", "benchmark": "b&c", "mode": "zero-shot", "subset": None,
           "spec": {}, "created": None, "updated": None, "status": "running"}
    out = tmp_path / "odd.html"
    write_html([RunView(run, rows, [], collect.run_stats(rows))], out)
    doc = out.read_bytes().decode("utf-8")
    assert "m&lt;script&gt;" in doc and "<x>" not in doc
    data = blob(doc)
    decoded = json.dumps(data)
    assert "evil.example" not in decoded and "[image_url omitted]" in decoded  # never a reference to fetch
    assert data["items"][0][5] is None  # unscored
    assert completion_text(data, data["items"][0]) == bad  # the lone surrogate survives (as a JSON escape)


def test_cli_report_html(toy_store: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from reasoneval.cli import app

    out = tmp_path / "cli.html"
    res = CliRunner().invoke(app, ["report", "run_zero_1", "run_sc_2", "--store", str(toy_store), "--html", str(out)])
    assert res.exit_code == 0, res.output
    doc = out.read_text(encoding="utf-8")
    assert "htmltoy (zero-shot)" in doc and len(blob(doc)["items"]) == 30


def test_verdict_outcomes_counted(toy_views: list[RunView], no_plots: None) -> None:
    data = blob(build_html(toy_views, load_items=False))
    outcomes = [i[5] for i in data["items"] if data["runs"][i[0]]["id"] == "run_zero_1"]
    assert outcomes.count("error") == 1 and outcomes.count("unanswerable") == 1
    assert outcomes.count("correct") + outcomes.count("incorrect") == 18


def test_no_runs(tmp_path: Path) -> None:
    out = tmp_path / "empty.html"
    write_html([], out)
    doc = out.read_text(encoding="utf-8")
    assert "No runs." in doc and blob(doc)["items"] == []
