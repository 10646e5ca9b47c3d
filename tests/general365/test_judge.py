from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.general365.prompts import EQUIVALENCE_TEMPLATE, equivalence_prompt
from reasoneval.scoring.judge import judge_audit, parse_conclusion

FIX = Path(__file__).parents[1] / "fixtures" / "general365"
PAPER_JUDGE = (  # General365 Appendix B, Example 14, as printed (line breaks flattened)
    "For the following problem, we have the reference answer and the student’s answer. Determine whether the "
    "student’s answer is equivalent to the reference answer. If equivalent, output \"Correct\". If not "
    "equivalent, output \"Incorrect\". ### Problem … ### Reference Answer … ### Student Answer … Now, please "
    "provide your judgment. Please strictly follow the format below to summarize your conclusion at the end of "
    "your judgment: ### Conclusion: Correct/Incorrect If the answer involves a decimal approximation, it must be "
    "accurate to at least four decimal places.")


def test_judge_template_is_the_papers() -> None:
    filled = EQUIVALENCE_TEMPLATE.format(problem="…", reference="…", student="…")
    assert " ".join(filled.split()) == PAPER_JUDGE
    p = equivalence_prompt("What day?", "Monday", "x" * 10_000)
    text = p.last_user_text()
    assert "### Reference Answer\nMonday\n" in text and "[...]" in text and len(text) < 8000


@pytest.mark.parametrize("reply, want", [
    ("The answers match.\n### Conclusion: Correct", True),
    ("### Conclusion: Incorrect", False),
    ("**Conclusion:** Incorrect.", False),
    ("### Conclusion: correct", True),
    ("### Conclusion: Correct\nOn second thought...\n### Conclusion: Incorrect", False),
    ("Format: ### Conclusion: Correct/Incorrect\nThey are equivalent.", None),  # template echoed only
    ("They are equivalent, so Correct.", None),
    ("", None),
])
def test_parse_conclusion(reply: str, want: bool | None) -> None:
    assert parse_conclusion(reply) is want


def test_judge_audit_on_labelled_fixture() -> None:
    res = judge_audit(str(FIX / "judge_audit_pred.jsonl"), str(FIX / "judge_audit_human.jsonl"))
    assert (res.n, res.agree, res.unparsed, res.only_pred, res.only_human) == (8, 6, 1, 1, 1)
    assert res.agreement == pytest.approx(0.75)
    assert res.confusion == {("correct", "correct"): 5, ("incorrect", "incorrect"): 1,
                             ("incorrect", "correct"): 1, ("unparsed", "incorrect"): 1}
    assert res.disagreements == ["6", "8"]
    assert res.by_method["rule"] == (4, 4) and res.by_method["judge"] == (2, 3)
    assert res.kappa is not None and 0 < res.kappa < 1
    text = str(res)
    assert "agreement 75.0% over 8 items" in text and "judge \\ human" in text and "disagreements: 6, 8" in text
    json.dumps(res.to_json())


def test_judge_audit_errors_name_file_and_row(tmp_path: Path) -> None:
    pred = tmp_path / "p.jsonl"
    human = tmp_path / "h.jsonl"
    pred.write_text('{"id": "1", "correct": true}\n', encoding="utf-8")
    human.write_text('{"id": "1", "correct": true}\n{"id": "2", "label": "maybe"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"h.jsonl: row 2: field 'label'"):
        judge_audit(str(pred), str(human))
    human.write_text('{"correct": true}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 1: field 'id'"):
        judge_audit(str(pred), str(human))
