"""Answer extraction and verdicts of the transfer benchmarks: boxed math (GSM8K, MATH) and MMLU letters."""

from __future__ import annotations

import time

import pytest

from reasoneval.benchmarks.mmlu.prompts import extract_letter
from reasoneval.core.values import Outcome
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
    ("0.5", "0.500001", True), ("0.5", "0.50001", False), ("1" + "0" * 40, "1" + "0" * 40, True),
    ("1" + "0" * 40, "1" + "0" * 39 + "1", False),
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


T = "Therefore, the final answer is: $\\boxed{%s}$. I hope it is correct"
# Crafted answers checked side by side against math-verify's own pipeline as open-r1's math_500 metric calls it
# (gold: LaTeX extraction; prediction: expression + LaTeX extraction; verify at precision 5): every verdict
# agrees with it except the two marked, which are this harness's policies (docs/transfer.md).
SIDE_BY_SIDE = [
    ("7", T % "7", True), ("2500", T % "2,500", True), ("4.5", T % "\\frac{9}{2}", True), ("-2", T % "2", False),
    ("18", T % "\\$18", True), ("18", T % "18.00", True), ("100", T % "100 \\text{ dollars}", True),
    ("3", "so the answer is 3", True), ("3", "#### 3", True),
    ("25", T % "25\\%", True),  # math-verify: 25% = 0.25 != 25; here a percent sign is dropped
    ("12", "I think 12 apples.", False),  # math-verify takes the last number; here unextractable (no box/marker)
    ("\\frac{3}{4}", T % "0.75", True), ("\\frac{3}{4}", T % "\\dfrac{3}{4}", True), ("\\frac{3}{4}", T % "3/4", True),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", T % "(3, \\pi/2)", True), ("p - q", T % "p-q", True),
    ("\\frac{14}{3}", T % "4\\frac{2}{3}", True), ("9", T % "9^\\circ", True), ("\\text{Evelyn}", T % "Evelyn", True),
    ("x^2+7x+10", T % "(x+2)(x+5)", True), ("2\\sqrt{2}", T % "\\sqrt{8}", True), ("[-2,7]", T % "[-2, 7]", True),
    ("(-\\infty,3)", T % "(-\\infty, 3)", True), ("6 - 5i", T % "6-5i", True), ("1", T % "0.999", False),
    ("\\pi", T % "3.14159", True), ("\\pi", T % "3.1416", False), ("0", T % "-0", True),
    ("5", "\\boxed{5} wait no \\boxed{6}", False), ("16", T % "2^4", True),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", T % "\\begin{pmatrix}1\\\\2\\end{pmatrix}", True),
]


@pytest.mark.parametrize(("gold", "text", "correct"), SIDE_BY_SIDE)
def test_verdicts_as_math_verify_decides(gold, text, correct):
    assert (math_verdict(gold, text).outcome is Outcome.CORRECT) is correct
