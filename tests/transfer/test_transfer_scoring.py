"""Answer extraction and verdicts of the transfer benchmarks: boxed math (GSM8K, MATH) and MMLU letters."""

from __future__ import annotations

import time

import pytest

from reasoneval.benchmarks.mmlu.prompts import extract_letter
from reasoneval.core.types import Outcome
from reasoneval.scoring.math_answer import (
    final_answer,
    math_verdict,
    plain_number,
    quick_equal,
    quick_verdict,
)


@pytest.mark.parametrize(("text", "want"), [
    ("x. Therefore, the final answer is: $\\boxed{72}$. I hope it is correct", ("72", "boxed")),
    ("\\boxed{1} first, then \\boxed{\\frac{1}{2}}", ("\\frac{1}{2}", "boxed")),
    ("so 3+4=7\n#### 7", ("7", "marker")),
    ("The answer is $\\frac{1}{2}$. I hope it is correct.", ("\\frac{1}{2}", "marker")),
    ("The final answer is: \\(12\\)", ("12", "marker")),
    ("I am not sure.", (None, "none")),
    ("\\boxed{}", (None, "none")),
])
def test_final_answer(text, want):
    assert final_answer(text) == want


@pytest.mark.parametrize(("gold", "pred", "want"), [
    ("2500", "2,500", True), ("18", "\\$18.00", True), ("25", "25\\%", True), ("4.5", "4.50", True),
    ("-2", "2", False), ("1000", "1,0000", None), ("\\frac{3}{4}", "0.75", None),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\frac{\\pi}{2})", True), ("\\text{Monday}", "Monday", True),
])
def test_quick_equal(gold, pred, want):
    assert quick_equal(gold, pred) is want


def test_plain_number_refuses_what_is_not_plain():
    assert plain_number("1,000,000") == 1000000
    assert [plain_number(s) for s in ("1e5", "2x", "1,00", "--3", "", "\\frac{1}{2}")] == [None] * 6


def test_quick_verdict_leaves_symbolic_answers_to_math_verify():
    assert quick_verdict("\\frac{3}{4}", "\\boxed{0.75}") is None
    v = quick_verdict("3", "no final answer")
    assert v is not None and v.outcome is Outcome.UNANSWERABLE and v.method == "unextractable"


def test_math_verify_decides_and_a_bomb_is_undecided():
    assert math_verdict("\\frac{3}{4}", "\\boxed{0.75}").outcome is Outcome.CORRECT
    assert math_verdict("\\frac{3}{4}", "\\boxed{\\frac{6}{8}}").outcome is Outcome.CORRECT
    assert math_verdict("\\frac{3}{4}", "\\boxed{\\frac{5}{8}}").outcome is Outcome.INCORRECT
    t = time.monotonic()
    bomb = math_verdict("10", "\\boxed{9^{9^{9^{9^{9}}}}}", timeout=1.0)
    assert time.monotonic() - t < 15
    assert bomb.outcome is Outcome.UNANSWERABLE and bomb.detail["math_verify"] == "timeout"


def test_extraction_is_linear_on_hostile_text():
    for text in ("\\boxed{" * 200_000, "the answer is " * 100_000, "####" * 200_000, "answer: " * 150_000):
        t = time.monotonic()
        final_answer(text)
        extract_letter(text)
        assert time.monotonic() - t < 2.0, text[:20]


@pytest.mark.parametrize(("text", "want"), [
    ("Reasoning.\nAnswer: B", ("B", "answer-line")),
    ("**Answer:** (c)", ("C", "answer-line")),
    ("Answer: A? No.\nAnswer: D", ("D", "answer-line")),
    ("answer: $\\boxed{B}$", ("B", "answer-line")),
    ("so it is $\\boxed{C}$", ("C", "boxed")),
    ("Answer: E", (None, "none")),
    ("All other answers are wrong", (None, "none")),
    ("Answer: Because", (None, "none")),
])
def test_mmlu_letter(text, want):
    assert extract_letter(text) == want
