from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.rbench.benchmark import RBench
from reasoneval.cli.rescore_output import rescore_outside
from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Verdict

FIX = Path(__file__).parents[1] / "fixtures" / "rbench"


def bench(path: Path) -> RBench:
    b = RBench()
    b.configure({"data": str(path)})
    return b


def test_registered() -> None:
    assert isinstance(registry.get("rbench"), RBench)
    assert registry.get("rbench").modes() == ["cot", "no-cot"]


def test_score_outcomes_and_methods() -> None:
    b = bench(FIX / "own")
    item = b.load("t_en", "cot")[0]  # gold D
    ok = b.score(item, "... n = 900.\nANSWER: D", "cot")
    assert ok.outcome is Outcome.CORRECT and ok.method == "rule" and ok.extracted == "D"
    assert ok.detail["department"] == "Biology" and ok.detail["subject"] == "Genetics"
    wrong = b.score(item, "ANSWER: D\nOn reflection...\nANSWER: F", "cot")
    assert wrong.outcome is Outcome.INCORRECT and wrong.extracted == "F"
    none = b.score(item, "I need more time to", "cot")
    assert none.outcome is Outcome.UNANSWERABLE and none.method == "unextractable" and none.extracted is None


def _row(b: RBench, subset: str, item_id: str, text: str) -> ScoredRow:
    item = next(i for i in b.load(subset, "cot") if i.id == item_id)
    v = b.score(item, text, "cot")
    return ScoredRow(item.key, subset, 0, [Turn(Prompt.chat("q"), Completion(text), v)])


def test_summary_per_language_department_subject_and_consistency() -> None:
    b = bench(FIX / "own")
    rows = [
        _row(b, "t_en", "q0", "ANSWER: D"), _row(b, "t_en", "q1", "ANSWER: B"), _row(b, "t_en", "q2", "ANSWER: C"),
        _row(b, "t_zh", "q0", "答案是D"), _row(b, "t_zh", "q1", "答案是E"), _row(b, "t_zh", "q2", "我不确定"),
    ]
    rows.append(ScoredRow("t_zh/qX", "t_zh", 0, [Turn(Prompt.chat("q"), Completion(error="boom"),
                                                      Verdict(Outcome.ERROR, method="error"))]))
    tables = {t.title: t for t in b.summarize(rows, "cot")}
    acc = tables["R-Bench Top-1 accuracy (cot)"]
    assert [r[0] for r in acc.rows] == ["t_en", "t_zh"]  # never merged: no overall row
    assert acc.rows[0][1:4] == [3, 2, 66.67]
    assert acc.rows[1][1:6] == [4, 1, 33.33, 1, 1]  # the backend error is left out of the denominator
    dept = tables["R-Bench accuracy per department"]
    assert ["t_en", "Biology", 1, 100.0] in dept.rows
    subj = tables["R-Bench accuracy per subject"]
    assert ["t_zh", "Mathematics", "ComplexAnalysis", 1, 0.0] in subj.rows
    cons = tables["R-Bench EN/ZH consistency (paired questions)"]
    assert cons.rows == [["R-Bench-T", 3, 1, 1, 0, 1, 66.67, 33.33]]


def test_summary_without_metadata_in_verdicts_falls_back_to_the_data() -> None:
    b = bench(FIX / "own")
    item = b.load("t_en", "cot")[0]
    rows = [ScoredRow(item.key, "t_en", 0, [Turn(Prompt.chat("q"), Completion("x"),
                                                 Verdict(Outcome.ERROR, method="error"))])]
    dept = {t.title: t for t in b.summarize(rows, "cot")}["R-Bench accuracy per department"]
    assert dept.rows[0][:2] == ["t_en", "Biology"]


def test_rescore_jsonl_stable_interface(capsys: pytest.CaptureFixture[str]) -> None:
    code = rescore_outside(RBench(), [str(FIX / "responses.jsonl")], True, {"judge": None})
    assert code == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all(set(r) == {"id", "correct", "extracted", "method"} for r in rows)
    assert [(r["id"], r["correct"], r["extracted"], r["method"]) for r in rows] == [
        ("0", True, "D", "rule"), ("1", True, "B", "rule"), ("2", False, "C", "rule"),
        ("0", True, "D", "rule"), ("1", False, "E", "rule"), ("2", False, None, "unextractable")]


def test_rescore_tables_and_truncation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rescore_outside(RBench(), [str(FIX / "responses.jsonl")], False, {}) == 0
    out = capsys.readouterr().out
    assert "R-Bench Top-1 accuracy" in out and "EN/ZH consistency" in out
    src = (FIX / "responses.jsonl").read_text(encoding="utf-8").splitlines()[0]
    row = {**json.loads(src), "finish_reason": "length"}
    p = tmp_path / "cut.jsonl"
    p.write_text(json.dumps(row) + "\n", encoding="utf-8")
    rescore_outside(RBench(), [str(p)], True, {})
    got = json.loads(capsys.readouterr().out)
    assert got["method"] == "truncated" and got["correct"] is False
