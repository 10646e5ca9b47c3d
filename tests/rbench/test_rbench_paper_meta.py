"""The paper's department/subject tables shipped with the package, and the subject -> department derivation."""

from __future__ import annotations

from pathlib import Path

from reasoneval.benchmarks.rbench.data import record_to_item
from reasoneval.benchmarks.rbench.paper_meta import department_of, paper_counts, tables
from reasoneval.core.records import Record


def test_tables_match_the_papers_totals() -> None:
    t = tables()
    assert "2505.02018" in t["provenance"]
    for split, depts, subjects, questions in (("T", 18, 108, 1094), ("M", 18, 83, 665)):
        rows = t["splits"][split]
        assert len(rows) == depts and sum(len(d["subjects"]) for d in rows) == subjects
        assert sum(paper_counts(split).values()) == questions
    assert paper_counts("T")["Mathematics"] == 188 and paper_counts("M")["Vehicle Engineering"] == 68


def test_department_from_a_unique_subject_only() -> None:
    assert department_of("T", "Genetics") == "Biology"
    assert department_of("T", "fluid mechanics and aerodynamics") == "Aerospace"  # spaces lost in the PDF
    assert department_of("T", "Fluid Mechanics") is None  # Civil Engineering and Mechanical Engineering
    assert department_of("M", "Genetics") == "Biology" and department_of("M", "Statistics") == "Mathematics"
    assert department_of("T", "Underwater Basket Weaving") is None


def test_loader_fills_department_from_subject() -> None:
    base = {"index": 1, "question": "Q?", "A": "x", "B": "y", "answer": "A"}
    it = record_to_item(Record(Path("t.jsonl"), 1, {**base, "subject": "Optimal Control"}), "t_en")
    assert it.data["_rbench"]["department"] == "Aerospace"
    assert it.data["_rbench"]["department_from"] == "paper-table"
    it = record_to_item(Record(Path("t.jsonl"), 1, {**base, "subject": "FluidMechanics"}), "t_en")
    assert it.data["_rbench"]["department"] is None
    it = record_to_item(Record(Path("t.jsonl"), 1, {**base, "department": "Physics", "subject": "Optics"}), "t_zh")
    assert (it.data["_rbench"]["department"], it.data["_rbench"]["department_from"]) == ("Physics", None)


def test_report_says_when_the_breakdowns_cannot_be_made() -> None:
    from reasoneval.benchmarks.rbench import analysis
    from reasoneval.core.values import Outcome, Verdict

    ok = Verdict(Outcome.CORRECT, "A", "rule", {})
    bare = analysis.all_tables([analysis.Scored("t_en", "1", ok, {})], "cot")
    assert any("No per-department or per-subject table" in n for n in bare[0].notes)
    assert [t.title for t in bare] == ["R-Bench Top-1 accuracy (cot)"]
    full = analysis.all_tables([analysis.Scored("t_en", "1", ok, {"department": "Biology", "subject": "Genetics"})],
                               "cot")
    assert not any("No per-department" in n for n in full[0].notes)
    assert "R-Bench accuracy per department" in [t.title for t in full]
