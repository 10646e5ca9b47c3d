"""Issue 25 point 4: the paper mandates one ``\\boxed{}`` final answer; several different boxes must not pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoneval.benchmarks.general365.benchmark import General365
from reasoneval.benchmarks.general365.grading import final_boxes
from reasoneval.core.values import Item, Outcome

FIX = Path(__file__).parents[1] / "fixtures" / "general365"


def _items() -> dict[str, Item]:
    b = General365()
    b.configure({"data": str(FIX / "hf")})
    return {i.id: i for i in b.load("test", "paper")}


@pytest.mark.parametrize("text, boxes, source", [
    ("### The final answer is: $\\boxed{4}$ or $\\boxed{5}$", ["4", "5"], "boxed-after-marker"),
    ("$\\boxed{4}$ or $\\boxed{5}$", ["4", "5"], "boxed"),
    ("so \\boxed{ 4 }.\n### The final answer is: $\\boxed{4}$ and again \\boxed{4 }", ["4"], "boxed-after-marker"),
    ("maybe \\boxed{7}\n### The final answer is:\n\n$$\\boxed{\\frac{1}{2}}$$", ["\\frac{1}{2}"],
     "boxed-after-marker"),  # the box may sit on a line after the marker; boxes before it do not count
    ("### The final answer is: $\\boxed{4}$\nor perhaps $\\boxed{5}$", ["4", "5"], "boxed-after-marker"),
    ("first \\boxed{12}, then \\boxed{420}", ["12", "420"], "boxed"),
    ("nothing boxed", [], "none"),
])
def test_final_boxes(text: str, boxes: list[str], source: str) -> None:
    assert final_boxes(text) == (boxes, source)


def test_several_different_boxes_do_not_pass() -> None:
    b, it = General365(), _items()
    assert str(it["1"].gold) == "420"
    hedge = "### The final answer is: $\\boxed{420}$ or $\\boxed{421}$"
    v = b.score(it["1"], hedge, "paper")
    assert (v.outcome, v.method) == (Outcome.INCORRECT, "rule")
    assert v.detail["rule"] == "several-different-boxed-answers" and v.detail["boxes"] == ["420", "421"]
    assert v.extracted == "420 | 421"
    assert b.score(it["1"], "$\\boxed{421}$ or $\\boxed{420}$", "paper").outcome is Outcome.INCORRECT
    assert b.judge_prompt(it["1"], hedge, "cascade") is None  # the judge does not get to accept a hedge
    # the same answer boxed twice, or written two ways, is one answer
    assert b.score(it["1"], "\\boxed{420}\n### The final answer is: $\\boxed{420}$ $\\boxed{ 420 }$",
                   "paper").outcome is Outcome.CORRECT
    v = b.score(it["1"], "### The final answer is: $\\boxed{420}$ = $\\boxed{420.0}$", "paper")
    assert (v.outcome, v.detail["rule"]) == (Outcome.CORRECT, "every-boxed-answer-equal")
    # one box on the final-answer line still wins over boxes in the reasoning
    assert b.score(it["1"], "maybe \\boxed{421}\n### The final answer is: $\\boxed{420}$",
                   "paper").outcome is Outcome.CORRECT
