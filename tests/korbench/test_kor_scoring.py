"""Unit tests of the reference evaluator semantics (spec §5.2) and of the corrected mode."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.korbench import brackets
from reasoneval.benchmarks.korbench.puzzle_rules import compare
from reasoneval.benchmarks.korbench.score_corrected import CORRECTED, explain
from reasoneval.benchmarks.korbench.score_official import (
    OFFICIAL,
    evaluate,
    finish,
    judge,
    real_life,
)
from reasoneval.scoring.latexcmp import LatexCanonicalizer


def test_extraction_cascade() -> None:
    assert brackets.extract("a [[ x ]] b [[ y ]]") == "[[x]]"  # first match
    assert brackets.extract("a [[ x ]] b [[ y ]]", policy="last") == "[[y]]"
    assert brackets.extract("so $\\boxed{12}$ and [3]") == "[[12]]"  # $\boxed{}$ before single brackets
    assert brackets.extract("interval [0, 1] here") == "[[0, 1]]"
    assert brackets.extract("nothing") == "NULL"
    assert brackets.extract({"error": "x"}) == "NULL"
    assert brackets.extract('[[ "A B"\n ]]', "clean") == "[[AB]]"
    assert brackets.extract("[[p. q]]", "logic") == "[[pq]]"
    assert brackets.extract("[[x = $\\frac{1}{2}$]]", "math") == " \\frac{1}{2}"  # spaces kept
    assert brackets.clean_latex("\\left(\\text{ok} x\\right)\\\\") == "( x)\\"
    assert brackets.inner("[[ a ]] [[b]]") == " a "
    assert brackets.inner("no") == "NULL"


def test_extraction_is_linear_on_hostile_text() -> None:
    import time

    t = time.perf_counter()
    for text in ("[[" * 300_000, "[[a]]" + "[[" * 300_000, "[" * 300_000 + "]", "$\\boxed{" * 100_000):
        brackets.extract(text, "clean")
        brackets.extract(text, "clean", "last")
        brackets.inner(text, "last")
    assert time.perf_counter() - t < 2.0


@pytest.mark.parametrize(
    ("response", "gold", "category", "rule", "idx", "expected"),
    [
        ("[[A]]", "[[A]]", "logic", "1", "1", True),
        ("[[ A. ]]", "[[A]]", "logic", "1", "1", True),  # logic cleaning removes dots and spaces
        # rule 5: ';'-parts sorted; the outer brackets stay attached to the first and last parts
        ("[[I1, I2, O];[+,-,-];[+,+,+];[-,+,-];[-,-,-]]", "[[I1,I2,O];[+,+,+];[+,-,-];[-,+,-];[-,-,-]]",
         "logic", "5", "42", True),
        ("[[I,O];[-,+];[+,-]]", "[[I,O];[+,-];[-,+]]", "logic", "5", "41", False),
        ("[[{x∣x ≤ -1 or x≥1}]]", "[[{x∣x≤-1 or x≥1}]]", "operation", "18", "179", True),
        ("[[{x | x < -1}]]", "[[{x∣x≤-1 or x≥1}]]", "operation", "18", "179", False),
        ("[[{3,1,2}]]", "[[{1,2,3}]]", "operation", "18", "171", True),  # rule 18: sorted word chars
        ("[[((-1,2),(3,4))]]", "[[((1,2),(3,4))]]", "operation", "23", "221", True),  # minus signs ignored
        ("[[3 or -2]]", "[[-2or3]]", "operation", "1", "12", True),  # 'or' alternatives, sorted
        ("[[24]]", "[[24]]", "cipher", "1", "1", True),
        ("[[ 24 ]]", "[[24]]", "cipher", "1", "1", True),
        ("[[A]]", "[[B]]", "counterfactual", "1", "1", False),
    ],
)
def test_dispatch(response: str, gold: str, category: str, rule: str, idx: str, expected: bool) -> None:
    assert judge(response, gold, category, rule, idx).correct is expected


def test_unanswerable_and_methods() -> None:
    j = judge("I do not know", "[[5]]", "cipher", "1", "1")
    assert j.correct is False and j.unanswerable and j.method == "exact"
    j = judge("[[5]]", "[[5]]", "puzzle", "7", "61")
    assert j.correct and j.method == "puzzle:general"


def test_real_life_rate() -> None:
    assert real_life("The answer is [[A]].", "[[A]]")
    assert not real_life("The answer is [[C]].", "[[A]]")


@pytest.mark.parametrize(
    ("rule", "resp", "gold", "expected"),
    [
        ("1", "Nine, ten!", "nine ten", True),
        ("2", "Tal", "t,tal", True),
        ("3", "cat, dog", "dog cat", True),
        ("4", "PEPLA", "appel pepla", True),
        ("4", "", "appel pepla", True),  # reference quirk: the empty answer is a substring
        ("5", "E=5, S=9", "S=9,E=5", True),
        ("9", "6+2*3-2=10", "6+2*3-2=10", True),
        ("9", "6*2+3-2=13", "6+2*3-2=10", False),  # operator sequence differs
        ("10", "(9+5-2)×2", "(9+5-2)×2", True),
        ("10", "2*(9+5-2)=24", "(9+5-2)×2", True),
        ("10", "8/(3-8/3)", "8/(3-8/3)", False),  # float eval gives 23.999999999999993
        ("10", "(9+5-2)÷0.5", "(9+5-2)×2", False),
        ("18", "[↑, 2]", "↑2", True),
        ("7", "a-b", "ab", True),
    ],
)
def test_puzzle_methods(rule: str, resp: str, gold: str, expected: bool) -> None:
    assert compare(rule, resp, gold)[0] is expected


def test_corrected_fixes() -> None:
    # last match
    assert judge("try [[1]] then [[24]]", "[[24]]", "cipher", "1", "1", CORRECTED).correct
    assert not judge("try [[1]] then [[24]]", "[[24]]", "cipher", "1", "1").correct
    # matrices keep minus signs
    assert not judge("[[((-1,2),(3,4))]]", "[[((1,2),(3,4))]]", "operation", "23", "221", CORRECTED).correct
    # exact arithmetic, '÷'
    assert compare("10", "8/(3-8/3)", "8/(3-8/3)", True)[0]
    assert compare("10", "8÷(3-8÷3)", "8/(3-8/3)", True)[0]
    # anagram: a whole listed word, never the empty answer
    assert not compare("4", "", "appel pepla", True)[0]
    assert compare("4", "Pepla", "appel pepla", True)[0]
    # three-shot completions are cut at the model's next invented question
    text = "[[7]]\n\n### Question:\nmore\n\n### Answer:\n[[9]]"
    assert judge(text, "[[7]]", "operation", "1", "1", CORRECTED, raw_completion=True).correct
    assert not judge(text, "[[7]]", "operation", "1", "1", CORRECTED, raw_completion=False).correct
    # gold cleaned like the response (cipher sub-steps with list-valued golds)
    gold = "[['A', 'B']]"  # spaces in the gold: the raw gold never equals a cleaned response
    assert not judge("[[['A','B']]]", gold, "cipher", "1", "1").correct
    assert judge("[[['A','B']]]", gold, "cipher", "1", "1", CORRECTED).correct


def test_explain_names_the_fix() -> None:
    def verdict(pol: object) -> bool:
        return bool(judge("try [[1]] then [[24]]", "[[24]]", "cipher", "1", "1", pol).correct)  # type: ignore[arg-type]

    assert explain(verdict) == "last [[...]] match instead of the first"


def test_sympy_comparisons(latex: LatexCanonicalizer) -> None:
    gold = "[[2x\\sin(x)+x^2\\cos(x)]]"
    # structurally equal after simplify
    assert evaluate("[[x^2\\cos(x) + 2x\\sin(x)]]", gold, "operation", "15", "151", lc=latex)
    assert not evaluate("[[x^2\\cos(x)]]", gold, "operation", "15", "151", lc=latex)
    # identical text: decided without SymPy
    j = judge("[[2x\\sin(x)+x^2\\cos(x)]]", gold, "operation", "15", "151")
    assert j.correct and j.pending is None
    # unparsable on both sides -> cleaned-string equality, and the failure is visible
    j = finish(judge("[[\\frac{]]", "[[\\frac{]]", "operation", "15", "151"), latex)
    assert j.correct  # identical strings
    j = finish(judge("[[***]]", gold, "operation", "15", "151"), latex)
    assert j.correct is False and any("latex parse failed" in n for n in j.notes)
    # 'or' golds compare sets of simplified parts
    g2 = "[[-6+\\sqrt{22}or-6-\\sqrt{22}]]"
    assert evaluate("[[-6-\\sqrt{22} or -6+\\sqrt{22}]]", g2, "operation", "2", "18", lc=latex)
    # 'x = ...' keeps the right-hand side
    assert evaluate("[[x = \\frac{1}{2}]]", "[[\\frac{1}{2}]]", "operation", "9", "94", lc=latex)


def test_official_is_default() -> None:
    assert OFFICIAL.match == "first" and not OFFICIAL.matrix_signed
