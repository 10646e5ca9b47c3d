"""KOR-Bench per-rule and per-tag breakdowns: from the benchmark's summaries, on released items."""

from __future__ import annotations

from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.benchmarks.korbench.breakdown import RuleInfo, RuleResult, per_tag_table, tag_parts
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Verdict


def _rows(b: KorBench, subset: str, right: set[int], n: int = 20) -> list[ScoredRow]:
    out = []
    for i, item in enumerate(b.load(subset, "zero-shot")[:n]):
        text = "[[certainly wrong 12345]]"
        v = b.score(item, text, "zero-shot")  # a real verdict (detail with the rule id) ...
        if i in right:  # ... made correct: golds' formats vary too much to write right answers generically
            v = Verdict(Outcome.CORRECT, v.extracted, v.method, v.detail)
        out.append(ScoredRow(item.key, item.subset, 0, [Turn(Prompt.chat("q"), Completion(text), v)]))
    return out


def test_per_rule_and_tag_tables_from_released_items() -> None:
    b = KorBench()
    rows = _rows(b, "logic", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})  # rule 1 all right, rule 2 one of ten
    assert all(r.final.verdict and r.final.verdict.detail["rule_id"] in ("1", "2") for r in rows)
    tables = {t.title: t for t in b.summarize(rows, "zero-shot")}
    rule = tables["KOR-Bench accuracy per rule (zero-shot)"]
    assert rule.columns == ["category", "rule", "title", "tag", "n", "correct", "accuracy"]
    assert [r[:2] + r[4:] for r in rule.rows] == [["logic", "1", 10, 10, 100.0], ["logic", "2", 10, 1, 10.0]]
    assert rule.rows[0][3] == "Formal Logic,Deductive Logic,Propositional Logic"
    assert rule.rows[0][2] == b.data.rule("logic", "1").title
    tag = tables["KOR-Bench accuracy per rule tag (zero-shot)"]
    assert tag.rows == [["logic", "Formal Logic", 2, 20, 11, 55.0, 10.0, 100.0],
                        ["logic", "Deductive Logic", 2, 20, 11, 55.0, 10.0, 100.0],
                        ["logic", "Propositional Logic", 2, 20, 11, 55.0, 10.0, 100.0]]


def test_rule_found_from_data_when_an_old_verdict_lacks_it() -> None:
    b = KorBench()
    items = b.load("cipher", "zero-shot")
    rows = [ScoredRow(it.key, it.subset, 0, [Turn(Prompt.chat("q"), Completion("x"),
                                                  Verdict(Outcome.CORRECT, "x", "exact", {}))])
            for it in (items[0], items[25], items[240])]
    tables = {t.title: t for t in b.summarize(rows, "zero-shot")}
    rule = tables["KOR-Bench accuracy per rule (zero-shot)"]
    assert [r[1] for r in rule.rows] == ["1", "3", "25"]
    tag = tables["KOR-Bench accuracy per rule tag (zero-shot)"]
    assert [r[1] for r in tag.rows] == ["Classical Cryptography", "Monoalphabetic Ciphers", "Modern Cryptography",
                                        "Hash Function Ciphers"]


def test_tag_parts_and_untagged_rules() -> None:
    assert tag_parts("math,space") == ["math", "space"]
    assert tag_parts("") == ["(no tag)"]
    t = per_tag_table([RuleResult("counterfactual", "1", True), RuleResult("counterfactual", "2", False)],
                      lambda c, r: RuleInfo())
    assert t.rows == [["counterfactual", "(no tag)", 2, 2, 1, 50.0, 0.0, 100.0]]


def test_no_breakdown_for_mixed_or_subquestions() -> None:
    b = KorBench()
    item = b.load("cipher-subquestions", "subquestions")[0]
    row = ScoredRow(item.key, item.subset, 0, [Turn(Prompt.chat("q"), Completion("x"), b.score(item, "x", "subquestions"))])
    assert [t.title for t in b.summarize([row], "subquestions")] == ["korbench (subquestions)"]
