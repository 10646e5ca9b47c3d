"""``report --latex`` compiles with a real pdflatex at 62 runs: no error, no overfull box wider than a few points,
no float too large; the tables also compile when ``\\input`` into another document.

The store has the release's shape (62 KOR-Bench runs, paper model names, one dated snapshot the paper does not
report, one run without Counterfactual, display names with LaTeX specials and rule symbols) and the per-rule
tables read the real rule titles (with their symbols: ○ ◎ ※ ...). Skipped when pdflatex is not installed
(``.ci/run`` installs it).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from release_shape import fill_release_shape
from typer.testing import CliRunner

from reasoneval.benchmarks.korbench import paper_numbers as pn
from reasoneval.cli import app

#: how far past the margin a box may stick out (pt)
SLACK = 3.0


def _pdflatex() -> str:
    exe = shutil.which("pdflatex")
    if exe is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended "
                    "texlive-latex-extra)")
    return exe


@pytest.fixture(scope="module")
def store62(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("s62") / "runs.db"
    return path, fill_release_shape(path)


def _compile(tex: Path) -> str:
    res = subprocess.run([_pdflatex(), "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                         capture_output=True, text=True, timeout=300)
    log = tex.with_suffix(".log").read_text(encoding="latin-1")
    assert res.returncode == 0, log[-3000:]
    return log


def _problems(log: str) -> list[str]:
    bad = [ln for ln in log.splitlines() if ln.startswith("!") or "Float too large" in ln]
    for m in re.finditer(r"Overfull \\[hv]box \(([\d.]+)pt too (wide|high)\)", log):
        if float(m.group(1)) > SLACK:
            bad.append(m.group(0))
    return bad


def test_latex_of_62_runs_compiles_without_errors_or_overfull_boxes(store62: tuple[Path, list[str]],
                                                                    tmp_path: Path) -> None:
    path, ids = store62
    out = tmp_path / "report.tex"
    res = CliRunner().invoke(app, ["report", *ids, "--store", str(path), "--latex", str(out), "--tables", "all"])
    assert res.exit_code == 0, res.output
    assert res.stdout == ""  # a file flag prints no tables (--print would)
    doc = out.read_text(encoding="utf-8")
    assert doc.startswith("% generated") and r"\documentclass" in doc and r"\end{document}" in doc
    assert doc.isascii()  # every symbol mapped or written [U+XXXX]
    assert r"\begin{longtable}" in doc  # the per-rule tables break across pages
    # constant columns are in the caption, not columns: no mode or subset column in Table 2
    t2 = doc[doc.index(r"\caption{korbench (zero-shot)"):]
    t2 = t2[:t2.index(r"\end{")]
    assert r"\caption{korbench (zero-shot) (mode zero-shot, subset all, scoring official)}" in t2
    header = next(ln for ln in t2.splitlines() if ln.startswith("model &"))
    assert header.startswith(r"model & Overall & paper & \ensuremath{\Delta} & Operation")
    # the best value of a column is bold; the dated snapshot is not compared with GPT-4o-2024-05-13
    assert r"\textbf{" in t2
    snap = next(ln for ln in t2.splitlines() if ln.startswith("gpt-4o-2024-08-06 &"))
    assert "not in paper" in snap
    assert r"my\_model \& 50\% \{\ensuremath{\circ}\} \#1" in doc
    log = _compile(out)
    assert _problems(log) == []
    assert "Output written on report.pdf" in log
    # the tables alone, \input into another document that loads the packages the file names
    body = tmp_path / "report-tables.tex"
    needs = body.read_text(encoding="utf-8").splitlines()[0]
    pkgs = re.findall(r"\\usepackage\{(\w+)\}", needs)
    assert {"booktabs", "longtable"} <= set(pkgs)
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n\\usepackage[margin=2cm]{geometry}\n"
                     + "".join(f"\\usepackage{{{p}}}\n" for p in pkgs)
                     + "\\begin{document}\nText.\n\\clearpage\n\\input{report-tables}\n\\clearpage\n\\end{document}\n")
    plog = _compile(paper)
    assert not [ln for ln in plog.splitlines() if ln.startswith("!")]


def test_table2_in_markdown_csv_json_with_paper_and_delta(store62: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, ids = store62
    md, csv_path = tmp_path / "t.md", tmp_path / "t.csv"
    res = CliRunner().invoke(app, ["report", *ids, "--store", str(path), "--md", str(md), "--csv", str(csv_path),
                                   "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    # each run's accuracy is in the JSON; the incomplete run says so
    by_model = {r["run"]["model"]: r for r in doc["runs"]}
    assert all(isinstance(r["accuracy"], float) for r in doc["runs"])
    assert by_model["Meta-Llama-3-70B"]["complete"] is False
    assert by_model["Meta-Llama-3-70B"]["missing"] == "no Counterfactual items"
    # default at many runs: the main tables; the per-rule ones are named as left out
    assert {t["group"] for t in doc["tables"]} == {"main"} and doc["left_out"]
    (t2,) = [t for t in doc["tables"] if t["title"] == "korbench (zero-shot)"]
    cols = t2["columns"]
    assert cols[:5] == ["model", "Overall", "Overall paper", "Overall Δ", "Operation"]
    assert "Counterfactual real-life rate" in cols and "n/a reason" not in cols
    rows = {r[0]: dict(zip(cols, r, strict=True)) for r in t2["rows"]}
    claude = rows["Claude-3.5-sonnet-20240620"]
    assert claude["Overall paper"] == pn.KORBENCH_TABLE2_CHAT["Claude-3.5-sonnet-20240620"]["Overall"]
    assert isinstance(claude["Overall"], float)
    assert claude["Overall Δ"] == pytest.approx(claude["Overall"] - claude["Overall paper"], abs=1e-3)
    assert claude["paper row"] == "compared"
    snap = rows["gpt-4o-2024-08-06"]
    assert snap["Overall paper"] is None and snap["paper row"] == "not in paper"
    # ranked: complete runs by Overall, best first
    overall = [r[1] for r in t2["rows"]]
    assert overall == sorted(overall, reverse=True)
    # the base models' table: the run without Counterfactual last, its Overall null with the reason
    (t2b,) = [t for t in doc["tables"] if t["title"] == "korbench (three-shot)"]
    last = dict(zip(t2b["columns"], t2b["rows"][-1], strict=True))
    assert last["model"] == "Meta-Llama-3-70B" and last["Overall"] is None
    assert last["n/a reason"] == "Overall: no Counterfactual items"
    # CSV: the same typed table
    rows_csv = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows_csv[0] == [*cols, "run"]  # CSV rows end with their run id
    got = {r[0]: r for r in rows_csv[1:]}
    assert float(got["Claude-3.5-sonnet-20240620"][1]) == claude["Overall"]
    # Markdown: paper and Δ columns, the best Overall bold, "not in paper" said
    text = md.read_text(encoding="utf-8")
    assert "| model | Overall | paper | Δ | Operation |" in text
    assert "not in paper" in text and "| **" in text
