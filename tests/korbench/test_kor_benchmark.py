"""The registered Benchmark: catalogue, prompts, verdicts and summaries."""

from __future__ import annotations

import json

from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.benchmarks.korbench.mixed import json_answers, judge_mixed
from reasoneval.benchmarks.korbench.score_corrected import CORRECTED
from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt


def test_registered() -> None:
    b = registry.get("korbench")
    assert isinstance(b, KorBench) and b.default_mode == "zero-shot"
    assert b.policy.name == "official"


def test_load_matrix() -> None:
    b = KorBench()
    n = {(s, m): len(b.load(s, m)) for s in b.subsets() for m in b.modes()}
    assert n[("operation", "zero-shot")] == 250 and n[("puzzle", "trick")] == 250
    assert n[("cipher", "trick")] == 0 and n[("Multi-Q", "zero-shot")] == 0
    assert n[("Multi-RQ_Hard", "mixed")] == 4000 and n[("cipher-subquestions", "subquestions")] == 345
    assert sum(v for (s, m), v in n.items() if m == "zero-shot") == 1250


def test_prompt_kinds() -> None:
    b = KorBench()
    item = b.load("logic", "three-shot")[0]
    assert b.prompt(item, "three-shot").text is not None  # raw completion, no chat template
    assert b.prompt(item, "zero-shot").is_chat
    assert len(b.prompt(item, "zero-shot").messages) == 1  # no system prompt


def test_verdicts() -> None:
    b = KorBench()
    cf = b.load("counterfactual", "zero-shot")[0]  # gold C, real-life A
    v = b.score(cf, "It is [[A]]", "zero-shot")
    assert v.outcome is Outcome.INCORRECT and v.detail["real_life"] is True
    assert b.score(cf, "[[C]]", "zero-shot").outcome is Outcome.CORRECT
    assert b.score(cf, "no idea", "zero-shot").outcome is Outcome.UNANSWERABLE
    op = b.load("operation", "zero-shot")[0]
    assert b.score(op, "[[24]]", "zero-shot").correct
    assert b.score(op, "[[24]]\n### Question:\n[[1]]", "three-shot").correct


def test_mixed_scoring() -> None:
    b = KorBench()
    item = next(it for it in b.load("Multi-Q", "mixed") if len(it.data["questions"]) == 3)
    answers = dict(zip(("question1", "question2", "question3"), item.gold, strict=True))
    good = "Here:\n```json\n" + json.dumps(answers) + "\n```"
    v = b.score(item, good, "mixed")
    assert v.outcome is Outcome.CORRECT and v.detail["pass_rate"] == 1.0
    half = dict(answers, question2="[[nope]]")
    v = b.score(item, json.dumps(half), "mixed")
    assert v.outcome is Outcome.INCORRECT and abs(v.detail["pass_rate"] - 2 / 3) < 1e-9
    assert b.score(item, "{not json", "mixed").outcome is Outcome.UNANSWERABLE
    # keys are ignored, values compared by position
    renamed = {f"k{i}": a for i, a in enumerate(item.gold)}
    assert b.score(item, json.dumps(renamed), "mixed").correct
    assert json_answers('x {"a": "[[1]]",\n "b": 2} y }') is None  # greedy span up to the last '}'
    assert json_answers('x {"a": "[[1]]",\n "b": 2} y') == ["[[1]]", 2]


def test_mixed_bare_values_only_in_corrected() -> None:
    data = KorBench().data
    q = data.question("cipher", "1")
    bare = json.dumps({"question1": q.answer[2:-2]})
    assert not judge_mixed(bare, [q]).correct
    assert judge_mixed(bare, [q], CORRECTED).correct


def _row(b: KorBench, item_subset: str, idx: int, text: str, mode: str = "zero-shot") -> ScoredRow:
    item = b.load(item_subset, mode)[idx]
    v = b.score(item, text, mode)
    return ScoredRow(item.key, item.subset, 0, [Turn(Prompt.chat("q"), Completion(text), v)])


def test_summarize_table2_layout() -> None:
    b = KorBench()
    rows = [_row(b, "operation", 0, "[[24]]"), _row(b, "operation", 1, "[[0]]"),
            _row(b, "counterfactual", 0, "[[A]]"), _row(b, "counterfactual", 1, "[[Z]]")]
    t, *breakdowns = b.summarize(rows, "zero-shot")
    assert [x.title for x in breakdowns] == ["KOR-Bench accuracy per rule tag (zero-shot)",
                                             "KOR-Bench accuracy per rule (zero-shot)"]
    assert t.columns == ["Overall", "Operation", "Logic", "Cipher", "Puzzle", "Counterfactual"]
    # no Overall over two of the five categories: missing, with the reason (it was 25.00)
    assert t.rows == [["n/a (no Logic, Cipher, Puzzle items)", "50.00", "-", "-", "-", "0.00 (50.00)"]]


def test_summarize_self_correction_rounds() -> None:
    b = KorBench()
    item = b.load("operation", "self-correction")[0]
    turns = [Turn(Prompt.chat("q"), Completion(t), b.score(item, t, "self-correction")) for t in ("[[1]]", "[[24]]")]
    tables = b.summarize([ScoredRow(item.key, item.subset, 0, turns)], "self-correction")
    assert tables[0].rows[0][1] == "100.00"
    rounds = tables[1].rows[0]
    assert rounds[:4] == ["operation", 1, "0.00", "100.00"]


def test_versions() -> None:
    b = KorBench()
    assert len(b.data_version()) == 16 and b.data_version() == KorBench().data_version()
    assert b.prompt_version("zero-shot") != b.prompt_version("three-shot")
    assert b.prompt_version("zero-shot") == KorBench().prompt_version("zero-shot")


def test_errors_are_excluded_and_reported_in_every_mode() -> None:
    """Issue 16: with 30% HTTP 400s, mixed and sub-question tables used to count errors as wrong answers."""
    from reasoneval.core.values import Verdict

    def row(i: int, subset: str, v: Verdict, error: str | None = None) -> ScoredRow:
        return ScoredRow(str(i), subset, 0, [Turn(Prompt.chat("q"), Completion("" if error else "x", error=error), v)])

    err = Verdict(Outcome.ERROR, method="error", detail={"error": "HTTP 400"})
    b = KorBench()
    cases = {
        "mixed": (lambda i: Verdict(Outcome.CORRECT, None, "mixed", {"pass_rate": 1.0, "n_correct": 2}), "Multi-Q"),
        "subquestions": (lambda i: Verdict(Outcome.CORRECT, "x", "exact", {"type": "encrypt"}), "cipher-subquestions"),
        "zero-shot": (lambda i: Verdict(Outcome.CORRECT, "x", "exact", {}), "logic"),
    }
    for mode, (ok, subset) in cases.items():
        clean = [row(i, subset, ok(i)) for i in range(7)]
        faulty = clean + [row(100 + i, subset, err, "HTTP 400 from s: bad") for i in range(3)]
        want, got = b.summarize(clean, mode), b.summarize(faulty, mode)
        assert [t.rows for t in got] == [t.rows for t in want], mode  # 100.00, not 70.00
        assert "100.00" in str(got[0].rows[0])
        assert any("3 items failed" in n for n in got[0].notes), (mode, got[0].notes)
