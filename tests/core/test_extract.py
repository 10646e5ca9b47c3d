from __future__ import annotations

import time

from reasoneval.scoring.extract import answer_line, boxed, choice_letter, double_brackets, strip_think


def test_double_brackets_policies() -> None:
    t = "first [[A]] then [[ B ]]"
    assert double_brackets(t) == "A"
    assert double_brackets(t, "last") == "B"
    assert double_brackets("none here") is None


def test_boxed_nested_and_truncated() -> None:
    assert boxed(r"so \boxed{\frac{1}{2}} and \boxed{x^{2}}") == "x^{2}"
    assert boxed(r"\boxed{\frac{1}{2}}", "first") == r"\frac{1}{2}"
    assert boxed(r"cut off \boxed{\frac{1}{") is None


def test_choice_letter_final_and_chinese() -> None:
    assert choice_letter("ANSWER: B\nwait, no.\nANSWER: D") == "D"
    assert choice_letter("ANSWER: B\nANSWER: D", policy="first") == "B"
    assert choice_letter("所以答案是C。") == "C"
    assert choice_letter("答案为：E") == "E"
    assert choice_letter("the answer is \\boxed{F}") == "F"
    assert choice_letter("ANSWER: G", letters="ABCDEF") is None
    assert choice_letter("I think it's probably") is None


def test_answer_line() -> None:
    assert answer_line("Answer: 42\nAnswer: 43") == "43"


def test_think_sections_removed() -> None:
    assert strip_think("<think>[[wrong]]</think>final [[right]]") == "final [[right]]"
    assert strip_think("<think>still thinking [[x]]") == ""
    assert strip_think("reasoning</think>[[ok]]") == "[[ok]]"


def test_hostile_inputs_are_linear_time() -> None:
    bait = "[[" * 200_000 + "a" * 1_000_000 + "\\boxed{" * 50_000 + "ANSWER:" * 50_000
    t0 = time.monotonic()
    double_brackets(bait)
    boxed(bait)
    choice_letter(bait)
    strip_think("<think>" + bait)
    assert time.monotonic() - t0 < 5.0


def test_findall_delimited_matches_the_regex_it_replaces() -> None:
    import random
    import re

    from reasoneval.scoring.extract import findall_delimited

    rng = random.Random(7)
    alphabet = ["[", "]", "[[", "]]", " ", "\n", "a", "b", "$", "\\boxed{", "}", "}$"]
    for _ in range(3000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        assert findall_delimited(t, "[[", "]]") == re.findall(r"\[\[\s*(.*?)\s*\]\]", t, re.DOTALL), t
        assert findall_delimited(t, "[", "]") == re.findall(r"\[\s*(.*?)\s*\]", t, re.DOTALL), t
        assert findall_delimited(t, "$\\boxed{", "}$", strip_ws=False) == re.findall(
            r"\$\\boxed\{(.*?)\}\$", t, re.DOTALL), t
