"""``reasoneval stats rbench``: subject distribution beside the paper's Tables 8 and 9 (own and HF-layout data)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reasoneval.cli import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rbench"


def _tables(data: Path) -> dict[str, dict]:
    r = CliRunner().invoke(app, ["stats", "rbench", "--data", str(data), "--json"])
    assert r.exit_code == 0, r.output
    return {t["title"]: t for t in json.loads(r.stdout)}


def test_departments_and_subjects_beside_the_paper() -> None:
    tables = _tables(FIXTURES / "own")  # t_en, t_zh, m_en only: the missing config is noted, not fatal
    per = tables["rbench: items per subset"]
    assert {r[0]: r[1] for r in per["rows"]} == {"t_en": 3, "t_zh": 3, "m_en": 2}
    assert any("m_zh" in n for n in per["notes"])
    dept = tables["R-Bench departments beside the paper (Tables 8, 9)"]
    rows = {(r[0], r[1]): r for r in dept["rows"]}
    assert sum(r[3] for r in dept["rows"] if r[0] == "T") == 1094  # Table 8 total
    assert sum(r[3] for r in dept["rows"] if r[0] == "M") == 665  # Table 9 total
    assert rows[("T", "Mathematics")][2:] == [12, 188, 1, 1]  # paper subjects, questions; ours en, zh
    assert rows[("T", "Biology")][2:] == [5, 41, 1, 1]
    subj = tables["R-Bench subject distribution beside the paper"]
    by = {(r[0], r[2]): r for r in subj["rows"]}
    assert by[("t_en", "Genetics")][5] == 16 and by[("t_en", "ComplexAnalysis")][5] == 26  # Table 8
    # a subject name twice in Table 9 (Aerospace 16, Mechanical Engineering 11): the item's department decides
    assert by[("m_en", "TheoreticalMechanics")][5] == 11


def test_release_layout_without_subjects_counts_under_no_department() -> None:
    tables = _tables(FIXTURES / "hf")
    dept = tables["R-Bench departments beside the paper (Tables 8, 9)"]
    none = [r for r in dept["rows"] if r[1] == "(no department)"]
    assert [(r[0], r[4], r[5]) for r in none] == [("T", 3, 3), ("M", 2, 2)]
    assert any("no department or subject" in n for n in dept["notes"])


def test_no_data_at_all_is_an_error(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["stats", "rbench", "--data", str(tmp_path)])
    assert r.exit_code == 2 and "error:" in r.output
