from __future__ import annotations

import pytest

from reasoneval.benchmarks.rbench.extraction import extract_letter
from reasoneval.scoring.extract import strip_think

CASES = [
    # several ANSWER lines: the final one wins (first-match is the anchors' known bug)
    ("Option A looks tempting. ANSWER: A is wrong because...\nRechecking the recursion.\nANSWER: D", "D"),
    ("ANSWER: B\nWait, I made an arithmetic slip: n = 900.\nANSWER: D", "D"),
    ("**ANSWER:** C", "C"),
    ("**ANSWER**: (E)", "E"),
    ("ANSWER: $F$", "F"),
    ("ANSWER: \\boxed{B}", "B"),
    # Chinese
    ("由递推关系得 n = 900。\n答案是D", "D"),
    ("先排除A和B。\n答案是：**C**", "C"),
    ("最终答案为选项E。", "E"),
    ("答案是D选项", "D"),
    ("ANSWER: A\n（翻译）\n答案是B", "B"),
    # boxed with nested braces
    ("The ratio is \\boxed{\\frac{1}{3}} of t_p, which is option A.\nANSWER: A", "A"),
    ("Therefore the answer is \\boxed{\\text{D}}", "D"),
    ("So \\boxed{{B}}", "B"),
    # last-line fallback in any case
    ("Computation done.\n**Answer: c**", "C"),
    # nothing usable
    ("Let me compute the generations. q_{n+1} = q_n/(1+q_n), so after", None),  # truncated reasoning
    ("ANSWER: All other answers are incorrect", None),  # option text instead of its letter
    ("The last line should be 'ANSWER: $LETTER'. Let me think", None),  # the instruction echoed
    ("ANSWER: G", None),  # not an option
    ("\\boxed{\\frac{1}{2}}", None),
    # a lone box means lone: two different boxed letters are no answer (it scored the last one, D)
    ("Either \\boxed{A} and \\boxed{D}", None),
    ("\\boxed{D} or maybe \\boxed{A}", None),
    ("\\boxed{\\frac{1}{2}}, which is option \\boxed{B}", None),
    ("So \\boxed{B}. Checking again: \\boxed{\\text{B}}", "B"),  # the same letter twice is one answer
]


@pytest.mark.parametrize("text, want", CASES)
def test_extraction_table(text: str, want: str | None) -> None:
    got, how = extract_letter(text)
    assert got == want
    assert (how == "none") == (want is None)


def test_only_the_items_letters_count() -> None:
    assert extract_letter("ANSWER: E", letters="ABCD") == (None, "none")
    assert extract_letter("ANSWER: B\nANSWER: E", letters="ABCD")[0] == "B"


def test_reasoning_sections_are_stripped_before_extraction() -> None:
    assert extract_letter(strip_think("<think>ANSWER: A</think>\nANSWER: B"))[0] == "B"
    assert extract_letter(strip_think("<think>ANSWER: A ... still thinking"))[0] is None
