"""Issue 25 point 5: full-width letters and punctuation are read as the letters they show (NFKC)."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.rbench.extraction import extract_letter


@pytest.mark.parametrize("text, want", [
    ("所以选D。\n答案是Ｄ", ("D", "answer-line")),
    ("答案是：（Ｂ）", ("B", "answer-line")),
    ("ＡＮＳＷＥＲ：Ｃ", ("C", "answer-line")),
    ("Ａｎｓｗｅｒ：ｅ", ("E", "last-line")),  # the any-case last-line rule
    ("ANSWER: Ａ\n复查后\n答案是Ｆ", ("F", "answer-line")),  # the final one still wins
    ("推理结束。\n**Ａｎｓｗｅｒ： ｃ**", ("C", "last-line")),
    ("答案是Ｚ", (None, "none")),  # not one of the options
    ("答案是Ｄ", ("D", "answer-line")),
])
def test_full_width(text: str, want: tuple[str | None, str]) -> None:
    assert extract_letter(text) == want


def test_full_width_scored_like_half_width() -> None:
    from reasoneval.benchmarks.rbench.benchmark import RBench
    from reasoneval.core.values import Item

    item = Item("rbench", "rbench-t_zh", "q1", {"_rbench": {"options": ["A", "B", "C", "D"],
                                                            "department": "x", "subject": "y"}}, "D")
    b = RBench()
    full, half = b.score(item, "答案是Ｄ", "default"), b.score(item, "答案是D", "default")
    assert full.correct and (full.outcome, full.extracted) == (half.outcome, half.extracted)
