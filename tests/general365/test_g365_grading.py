from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.general365.benchmark import General365
from reasoneval.benchmarks.general365.grading import choice_letters, extract_final
from reasoneval.cli.rescore_output import rescore_outside
from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, GenParams, Item, Outcome, Prompt, Usage

FIX = Path(__file__).parents[1] / "fixtures" / "general365"


def items(path: Path = FIX / "hf") -> dict[str, Item]:
    b = General365()
    b.configure({"data": str(path)})
    return {i.id: i for i in b.load("test", "paper")}


@pytest.mark.parametrize("text, kind, want", [
    ("so 12*35 = 420\n### The final answer is: $\\boxed{420}$", "number", "420"),
    ("first \\boxed{12}, then\n### The final answer is: $\\boxed{\\frac{1}{\\sqrt{2}}}$", "number",
     "\\frac{1}{\\sqrt{2}}"),
    ("### The final answer is: $\\boxed{(1, 2]}$\nThat is all. \\boxed{7}", "interval", "(1, 2]"),
    ("I guess \\boxed{5} but the final answer is unclear", "number", "5"),  # marker without a box: last box
    ("no box at all: 420", "number", None),
    ("### The final answer is: $\\boxed{\\frac{1}{2}", "number", None),  # truncated inside the box
    ("Cy.\n### The final answer is: $ C $", "single_choice", "C"),
    ("### The final answer is: $\\text{Monday}$.", "text", "Monday"),
    ("### The final answer is: \\boxed{A, C}\n\nExplanation follows.", "multiple_choice", "A, C"),
    ("It is Monday, I think", "text", None),
])
def test_final_answer_extraction(text: str, kind: str, want: str | None) -> None:
    assert extract_final(text, kind)[0] == want


@pytest.mark.parametrize("s, want", [
    ("C", {"C"}), ("A, C", {"A", "C"}), ("(A) and (C)", {"A", "C"}), ("Options B, D", {"B", "D"}),
    ("ACD", {"A", "C", "D"}), ("A、C", {"A", "C"}), ("Monday", None), ("B. Tuesday", None),
])
def test_choice_letters(s: str, want: set[str] | None) -> None:
    got = choice_letters(s)
    assert (None if got is None else set(got)) == want


def test_paper_mode_rule_for_numbers_judge_for_text() -> None:
    b, it = General365(), items()
    v = b.score(it["1"], "### The final answer is: $\\boxed{420}$", "paper")
    assert (v.outcome, v.method, v.extracted) == (Outcome.CORRECT, "rule", "420")
    assert v.detail["answer_type"] == "number"
    assert b.judge_prompt(it["1"], "### The final answer is: $\\boxed{421}$", "paper") is None
    v = b.score(it["4"], "### The final answer is: $\\boxed{3.14}$", "paper")
    assert (v.outcome, v.method) == (Outcome.INCORRECT, "rule")
    v = b.score(it["1"], "C is 12 or 35, product 420", "paper")
    assert (v.outcome, v.method) == (Outcome.UNANSWERABLE, "unextractable")
    text = "### The final answer is: $ Monday $"
    jp = b.judge_prompt(it["7"], text, "paper")
    assert jp is not None and "### Reference Answer\nMonday" in jp.last_user_text()
    assert "### Student Answer\nMonday" in jp.last_user_text()
    assert b.judge_prompt(it["5"], "### The final answer is: $ C $", "paper") is not None  # paper: always judged
    assert b.judge_prompt(it["7"], "   ", "paper") is None


def test_mathverify_timeout_is_unanswerable_not_incorrect() -> None:
    """Issue 16 decision (docs/reliability.md): math-verify running out of time cannot decide, so the verdict is
    unanswerable (``rule-timeout``), never a wrong answer; the verdict stays within its timeout plus respawn."""
    import time

    b = General365()
    b.configure({"data": str(FIX / "hf"), "mathverify_timeout": "1.5"})
    it = {i.id: i for i in b.load("test", "paper")}
    t0 = time.monotonic()
    v = b.score(it["1"], "### The final answer is: $\\boxed{9^{9^{9^{9}}}}$", "paper")
    assert time.monotonic() - t0 < 1.5 + 10.0
    assert (v.outcome, v.method, v.detail["rule"]) == (Outcome.UNANSWERABLE, "rule-timeout", "timeout")


def test_cascade_mode_judges_only_rule_failures() -> None:
    b, it = General365(), items()
    assert b.judge_prompt(it["1"], "### The final answer is: $\\boxed{420}$", "cascade") is None
    jp = b.judge_prompt(it["1"], "### The final answer is: $\\boxed{12 \\cdot 35}$ years", "cascade")
    assert jp is None  # 12*35 = 420 symbolically: the rule accepts it
    jp = b.judge_prompt(it["1"], "The product is four hundred twenty.", "cascade")
    assert jp is not None and "four hundred twenty" in jp.last_user_text()  # no box: judge reads the tail
    assert b.judge_prompt(it["5"], "### The final answer is: $ C $", "cascade") is None
    v = b.score_judged(it["1"], "The product is four hundred twenty.", "cascade",
                       "The student's 420 matches.\n### Conclusion: Correct")
    assert (v.outcome, v.method) == (Outcome.CORRECT, "judge")
    assert v.detail["rule_method"] == "unextractable"


def test_judge_replies_parsed_and_unparseable_counted_apart() -> None:
    b, it = General365(), items()
    text = "### The final answer is: $ Monday, the first workday $"
    assert b.score(it["7"], text, "paper").method == "judge-missing"
    v = b.score_judged(it["7"], text, "paper", "Equivalent.\n### Conclusion: Correct")
    assert (v.outcome, v.method) == (Outcome.CORRECT, "judge")
    v = b.score_judged(it["7"], text, "paper", "### Conclusion: Incorrect")
    assert (v.outcome, v.method) == (Outcome.INCORRECT, "judge")
    v = b.score_judged(it["7"], text, "paper", "I think it is fine.")
    assert (v.outcome, v.method) == (Outcome.UNANSWERABLE, "judge-unparseable")


class FakeJudge:
    """Answers ``Correct`` when the student answer contains the reference; records concurrency."""

    def __init__(self) -> None:
        self.calls = 0
        self.active = 0
        self.peak = 0
        self.closed = False

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        self.calls += 1
        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.02)
        self.active -= 1
        text = prompt.last_user_text()
        ref = text.split("### Reference Answer\n", 1)[1].split("\n", 1)[0]
        student = text.split("### Student Answer\n", 1)[1].split("\n\nNow, please", 1)[0]
        if "0.875" in ref:
            return Completion("hmm")  # unparseable
        return Completion(f"### Conclusion: {'Correct' if ref in student else 'Incorrect'}")

    async def aclose(self) -> None:
        self.closed = True


def _rescore(capsys: pytest.CaptureFixture[str], options: dict) -> dict[str, dict]:
    assert rescore_outside(General365(), [str(FIX / "responses.jsonl")], True, options) == 0
    return {r["id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}


def test_rescore_without_judge(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rescore(capsys, {"judge": None})
    assert all(set(r) == {"id", "correct", "extracted", "method"} for r in rows.values())
    assert {k: (r["correct"], r["method"]) for k, r in rows.items()} == {
        "1": (True, "rule"), "2": (True, "rule"), "3": (True, "rule"), "4": (False, "rule"),
        "5": (None, "judge-missing"), "6": (None, "judge-missing"), "7": (None, "judge-missing"),
        "8": (False, "unextractable")}
    rows = _rescore(capsys, {"judge": None, "mode": "cascade"})  # the rule settles what it can
    assert {k: r["method"] for k, r in rows.items()} == {
        "1": "rule", "2": "rule", "3": "rule", "4": "judge-missing", "5": "rule", "6": "rule",
        "7": "judge-missing", "8": "judge-missing"}


def test_rescore_with_judge_batches_calls(capsys: pytest.CaptureFixture[str]) -> None:
    judge = FakeJudge()
    rows = _rescore(capsys, {"judge": judge, "mode": "paper"})
    assert judge.calls == 3 and judge.peak == 3 and judge.closed  # items 5, 6, 7 at once
    assert {k: r["method"] for k, r in rows.items()} == {
        "1": "rule", "2": "rule", "3": "rule", "4": "rule", "5": "judge", "6": "judge", "7": "judge",
        "8": "unextractable"}
    assert rows["6"]["correct"] is False  # this judge does not see that "A and C" is "A, C"
    assert rows["7"]["correct"] is True

    judge = FakeJudge()
    rows = _rescore(capsys, {"judge": judge, "mode": "cascade"})
    assert judge.calls == 3  # items 4, 7, 8: the rule failures
    assert (rows["4"]["method"], rows["4"]["correct"]) == ("judge", False)
    assert (rows["6"]["method"], rows["6"]["correct"]) == ("rule", True)
    assert (rows["8"]["method"], rows["8"]["correct"]) == ("judge-unparseable", None)


def test_rescore_summary_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert rescore_outside(General365(), [str(FIX / "responses.jsonl")], False, {}) == 0
    out = capsys.readouterr().out
    assert "General365 accuracy (paper)" in out and "accuracy against output tokens" in out


def test_summary_categories_seeds_and_tokens() -> None:
    b = General365()
    b.configure({"data": str(FIX / "own.jsonl")})
    its = {i.id: i for i in b.load("test", "paper")}
    answers = {"s1": "420", "s1-v1": "461", "s2": "\\frac{1}{6}", "s2-v1": "0.1389"}
    rows = []
    for k, ans in answers.items():
        v = b.score(its[k], f"### The final answer is: $\\boxed{{{ans}}}$", "paper")
        comp = Completion("x", usage=Usage(10, 100 * (len(rows) + 1)))
        rows.append(ScoredRow(its[k].key, "test", 0, [Turn(Prompt.chat("q"), comp, v)]))
    tables = {t.title: t for t in b.summarize(rows, "paper")}
    overall = tables["General365 accuracy (paper)"]
    assert overall.rows[0][:4] == ["overall", 4, 75.0, 4]
    cats = {r[0]: r[1:] for r in tables["General365 accuracy per challenge category"].rows}
    assert cats == {"Branching & Enumeration": [2, 50.0], "Complex Constraints": [2, 50.0],
                    "Probability & Uncertainty": [2, 100.0]}
    seeds = {r[0]: r[1:] for r in tables["General365 seeds vs variants"].rows}
    assert seeds["seed"] == [2, 100.0] and seeds["variant"] == [2, 50.0]
    assert seeds["seed families, all versions correct"] == [2, 50.0]
    eff = tables["General365 accuracy against output tokens"].rows
    assert eff[0] == ["all", 4, 250.0, 75.0]


def test_registered() -> None:
    assert isinstance(registry.get("general365"), General365)


def test_models_efficiency_table_across_runs(tmp_path: Path) -> None:
    from reasoneval.benchmarks.general365.analysis import efficiency_plot, models_efficiency_table

    b = General365()
    it = items()["1"]

    def rows(text: str, toks: int) -> list[ScoredRow]:
        v = b.score(it, text, "paper")
        return [ScoredRow(it.key, "test", 0, [Turn(Prompt.chat("q"), Completion(text, usage=Usage(1, toks)), v)])]

    t = models_efficiency_table([("big", b.to_scored(rows("$\\boxed{420}$", 900))),
                                 ("small", b.to_scored(rows("$\\boxed{12}$", 100)))])
    assert t.rows == [["small", 1, 0.0, 100.0], ["big", 1, 100.0, 900.0]]
    assert Path(efficiency_plot(t, str(tmp_path / "eff.png"))).read_bytes().startswith(b"\x89PNG")
