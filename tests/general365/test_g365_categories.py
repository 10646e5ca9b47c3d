"""Category labels are mapped onto the paper's eight names; the table follows Table 1's column order."""

from __future__ import annotations

from pathlib import Path

from reasoneval.benchmarks.general365 import analysis
from reasoneval.benchmarks.general365.data import record_to_item
from reasoneval.benchmarks.general365.paper_meta import CATEGORIES, canonical
from reasoneval.core.records import Record
from reasoneval.core.values import Outcome, Verdict


def test_labels_map_onto_the_papers_names() -> None:
    assert len(CATEGORIES) == 8
    assert canonical("Spatial and Temporal Reasoning") == "Spatial & Temporal"
    assert canonical("implicit information reasoning") == "Implicit Information"
    assert canonical("Something Else") == "Something Else"
    rec = Record(Path("g.jsonl"), 1, {"id": "1", "question": "Q", "answer": "1", "answer_type": "number",
                                      "categories": "optimal strategy; Complex constraints"})
    assert record_to_item(rec).data["_g365"]["categories"] == ["Optimal Strategy", "Complex Constraints"]


def test_category_table_in_paper_order() -> None:
    ok = Verdict(Outcome.CORRECT, "1", "rule", {})
    rows = [analysis.Scored("1", ok, {"categories": ["Probability & Uncertainty", "Zeta"]}, 10),
            analysis.Scored("2", ok, {"categories": ["Complex Constraints"]}, 10)]
    t = analysis.category_table(rows)
    assert t is not None
    assert [r[0] for r in t.rows] == ["Complex Constraints", "Probability & Uncertainty", "Zeta"]


def test_report_says_which_breakdowns_cannot_be_made() -> None:
    ok = Verdict(Outcome.CORRECT, "1", "rule", {})
    bare = analysis.all_tables([analysis.Scored("1", ok, {"answer_type": "number"}, 10)], "zero-shot")
    assert any("No per-category table and no seeds-vs-variants table" in n for n in bare[0].notes)
    labelled = analysis.all_tables([analysis.Scored("1", ok, {"categories": ["Complex Constraints"]}, 10)],
                                   "zero-shot")
    assert any("No seeds-vs-variants table" in n for n in labelled[0].notes)
    assert "General365 accuracy per challenge category" in [t.title for t in labelled]
