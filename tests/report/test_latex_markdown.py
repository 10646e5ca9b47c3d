"""``report --latex`` (booktabs, escaped) and Markdown without HTML entities (but still safe)."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from report_fixtures import fill_store
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core.benchmark import Cell, Table
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report.latex import tex, to_latex
from reasoneval.report.render import to_markdown

EVIL = "m_1 <script>alert(1)</script> & 50% $x$ #2 {a} ~ ^ \\input{/etc/passwd} paper's\x1b[31m"

_UNTEX = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^", r"\textless{}": "<",
          r"\textgreater{}": ">", r"\textbar{}": "|"}


def _untex(s: str) -> str:
    """What LaTeX typesets for text written by ``tex`` (the inverse of its escapes)."""
    s = re.sub("|".join(re.escape(k) for k in _UNTEX), lambda m: _UNTEX[m.group(0)], s)
    return re.sub(r"\\([&%$#_{}])", r"\1", s)


def test_tex_escapes_every_special_character() -> None:
    out = tex(EVIL)
    assert _untex(out) == EVIL.replace("\x1b", " ")
    # no command survives: every backslash starts one of our escapes
    assert all(m.group(0) in {*_UNTEX, *(f"\\{c}" for c in "&%$#_{}")}
               for m in re.finditer(r"\\(?:[a-z]+\{\}|.)", out))
    assert "\\input" not in out


def test_latex_booktabs_layout() -> None:
    t2 = Table("KOR-Bench Table 2 (zero-shot)", ["Overall", "Operation", "Logic", "Cipher", "Puzzle", "Counterfactual"],
               [[55.6, 70.0, 50.0, 40.0, 20.0, Cell(85.6, 8.8)]], ["Δ = ours − paper & more"])
    merged = Table(t2.title, ["model", *t2.columns], [["openai/gpt-4o", *t2.rows[0]], [EVIL, *t2.rows[0]]],
                   t2.notes)
    doc = to_latex([merged, Table("KOR-Bench Table 2 (zero-shot)", ["model", "note"], [["a", "b"]])])
    assert doc.count(r"\begin{table}") == 2 and doc.count(r"\toprule") == 2 and doc.count(r"\bottomrule") == 2
    assert doc.count(r"\midrule") == 2 and "\\hline" not in doc
    # model left (a long name wraps in a ragged-right column), numbers (and "85.60 (8.80)") right
    assert re.search(r"\\begin\{tabular\}\{(l|>\{\\raggedright\\arraybackslash\}p\{\d+pt\})rrrrrr\}", doc)
    doc = doc.replace(r"\hspace{0pt}", "")  # the break points of a wrapped column
    assert r"\begin{tabular}{ll}" in doc
    assert r"model & Overall & Operation & Logic & Cipher & Puzzle & Counterfactual \\" in doc
    assert r"openai/gpt-4o & 55.60 & 70.00 & 50.00 & 40.00 & 20.00 & 85.60 (8.80) \\" in doc
    assert r"\caption{KOR-Bench Table 2 (zero-shot)}" in doc
    labels = re.findall(r"\\label\{([^}]*)\}", doc)
    assert len(labels) == len(set(labels)) == 2  # same titles, distinct labels
    assert r"\ensuremath{\Delta} = ours \ensuremath{-} paper \& more" in doc  # symbols pdflatex can set
    assert tex(EVIL) in doc and "<script>" not in doc


def test_latex_leaves_out_columns_no_row_reports() -> None:
    trick = Table("korbench (trick, official scoring)", ["model", "Overall", "Operation", "Logic", "Cipher", "Puzzle",
                                                         "Counterfactual"],
                  [["m1", Cell(12.0), "-", "-", "-", Cell(12.0), "-"], ["m2", Cell(8.0), "-", "", "-", Cell(8.0), None]])
    doc = to_latex([trick])
    assert r"\begin{tabular}{lrr}" in doc and r"model & Overall & Puzzle \\" in doc
    assert r"m1 & 12.00 & 12.00 \\" in doc and "Logic" not in doc


def test_markdown_has_no_html_entities_and_renders_as_the_text() -> None:
    t = Table("the paper's numbers <b>x</b>", ["model", "acc|%"], [[EVIL, 1.0]], ["see the paper's Table 2 & *more*"])
    md = to_markdown([t])
    assert "paper's" in md and "&#x27;" not in md and "&lt;" not in md and "&amp;" not in md
    assert "\x1b" not in md
    page = MarkdownIt("commonmark").enable("table").render(md)
    # rendered: no tag from the text, and the text reads as written
    assert "<script" not in page and "<b>" not in page
    assert "<h3>the paper's numbers &lt;b&gt;x&lt;/b&gt;</h3>" in page.replace("&#x27;", "'")
    assert "<td>m_1 &lt;script&gt;alert(1)&lt;/script&gt; &amp; 50% $x$ #2 {a} ~ ^ \\input{/etc/passwd} paper's [31m</td>" \
        in page.replace("&#x27;", "'")
    assert "<th>acc|%</th>" in page
    assert "see the paper's Table 2 &amp; *more*" in page.replace("&#x27;", "'")


def _samples_store(tmp_path: Path) -> Path:
    """The report fixture store plus a 3-sample run (2 items)."""
    path = tmp_path / "runs.db"
    st, _ = fill_store(path)
    spec = {"benchmark": "htmltoy", "mode": "zero-shot", "model": "openai/sampler", "samples": 3, "options": {},
            "params": {}}
    st.upsert_run("run_samples_3", "htmltoy", "", "zero-shot", "openai/sampler", spec)
    answers = {"alpha/1": [("4", True), ("5", False), ("4", True)], "alpha/2": [("1", False), ("7", True), ("1", False)]}
    for key, got in answers.items():
        for s, (ans, ok) in enumerate(got):
            st.put_completion("run_samples_3", key, s, 0, "answer", "alpha", Prompt.chat("q"), f"k{key}{s}",
                              Completion(f"[[{ans}]]", "stop", Usage(1000, 500), 0.1))
            st.put_verdict("run_samples_3", key, s, 0, "default",
                           Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, ans, "brackets"))
    st.close()
    return path


def test_report_cli_latex_prices_and_samples(tmp_path: Path) -> None:
    path = _samples_store(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/sampler: {input: 1.0, output: 4.0}\n")
    tex_out, md_out, html_out = tmp_path / "r.tex", tmp_path / "r.md", tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", "run_samples_3", "run_zero_1", "--store", str(path), "--latex",
                                   str(tex_out), "--md", str(md_out), "--prices", str(prices), "--json",
                                   "--html", str(html_out)])
    assert res.exit_code == 0, res.output
    doc = tex_out.read_text()
    assert "\\caption{Samples: pass@k, majority vote and spread across samples (\\%)}" in doc
    # pass@1 = (2/3 + 1/3) / 2 = 50; pass@2: alpha/1 1 - C(1,2)/C(3,2) = 1, alpha/2 1 - C(2,2)/C(3,2) = 2/3
    assert "sampler & zero-shot & 2 & 3 & 50.00 & 83.33 & 100.00 & 50.00 & 50.00 & 50.00 &" in doc
    # cost: 6 calls x (1000 x 1 + 500 x 4) / 1M = 0.018; per 1,000 items (2 items) = 9.0
    assert "\\caption{Cost}" in doc and "sampler & zero-shot & 2 & 6000 & 3000 & 0 & 0.02 & 9.00" in doc
    assert "no price for 'toy-model'" in doc
    page = html_out.read_text()
    assert "<h4>Cost</h4>" in page and "<h4>Samples: pass@k, majority vote and spread across samples (%)</h4>" in page
    # the overview counts items, not item x sample answers: 2 items, 6 answers
    overview = page[page.index("<h4>Runs"):]
    row = re.search(r'<tr data-run="\d+"><td>sampler</td>.*?</tr>', overview).group(0)
    assert re.findall(r'<td class="num" data-v="([^"]+)"', row)[0] == "2"
    assert "<th>answers (item x sample)</th>" in page
    md = md_out.read_text()
    assert "### Samples: pass@k" in md and "### Cost" in md
    import json

    out = json.loads(res.stdout[res.stdout.index("{"):])
    cost = next(t for t in out["tables"] if t["title"] == "Cost")
    assert cost["rows"][0][6] == 0.018


def test_report_cli_bad_price_file_is_one_line(tmp_path: Path) -> None:
    path = _samples_store(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/sampler: {input: 1.0}\n")
    res = CliRunner().invoke(app, ["report", "run_samples_3", "--store", str(path), "--prices", str(prices)])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: {prices}: entry 'openai/sampler': missing 'output' (price per 1M tokens)"
