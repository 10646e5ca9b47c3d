"""Our eval-free parser of math-verify's arithmetic text against SymPy's real ``parse_expr(s, evaluate=False)``.

Calling ``parse_expr`` here is on generated, trusted strings only (the reference behaviour being reproduced).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
from sympy import srepr
from sympy.parsing.sympy_parser import parse_expr

from reasoneval.scoring.arith_expr import parse_arith

N_GENERATED = 1500


def _outcome(f: Any, s: str) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", srepr(f(s))
        except Exception as e:  # noqa: BLE001 - the exception type is what is compared
            return "raises", type(e).__name__


def _reference(s: str) -> tuple[str, str]:
    return _outcome(lambda t: parse_expr(t, evaluate=False), s)


def _number(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.45:
        return str(rng.choice([0, 1, 2, 3, 7, 10, 12, 100, 250, 1000, 123456789]))
    if k < 0.75:
        return f"{rng.randint(0, 999)}.{rng.randint(0, 99999)}"
    return rng.choice(["0.5", ".5", "5.", "1.50", "007", "00", "0.000001", "3.14159265358979323846264",
                       "1..2", "1.2.3", "0", "01.5"])


_SPACES = ["", "", "", " ", "  ", "\t", "\x0c"]
_BINOPS = ["+", "-", "*", "/", "**", "×", "÷", "^", "*-", "+-", "--", "* *"]


def _expr(rng: random.Random, depth: int) -> str:
    sp = lambda: rng.choice(_SPACES)  # noqa: E731
    k = rng.random()
    if depth <= 0 or k < 0.3:
        return _number(rng)
    if k < 0.7:
        return f"{_expr(rng, depth - 1)}{sp()}{rng.choice(_BINOPS)}{sp()}{_expr(rng, depth - 1)}"
    if k < 0.82:
        return f"({sp()}{_expr(rng, depth - 1)}{sp()})"
    if k < 0.92:
        return f"{rng.choice(['-', '+', '- ', '-(', '--'])}{_expr(rng, depth - 1)}"
    # juxtaposition and odd shapes: calls, empty tuple, ellipsis, attribute-like dots, stray parentheses
    return rng.choice([f"{_number(rng)}({_expr(rng, depth - 1)})", f"{_expr(rng, depth - 1)}+()",
                       f"({_expr(rng, depth - 1)})({_number(rng)})", f"{_number(rng)} . {_number(rng)}",
                       f"{_expr(rng, depth - 1)}...", f"({_expr(rng, depth - 1)}", f"{_expr(rng, depth - 1)})",
                       f"{_number(rng)} {_number(rng)}", f"({_expr(rng, depth - 1)}\r+1)"])


def _generated() -> list[str]:
    rng = random.Random(20261203)
    out = [_expr(rng, rng.randint(1, 5)) for _ in range(N_GENERATED)]
    return [s.replace("^", "**") if rng.random() < 0.5 else s for s in out]  # as math-verify hands it, or raw


def test_generated_text_builds_what_parse_expr_builds() -> None:
    strings = _generated()
    mismatches = [(s, parse, ref) for s in strings
                  if (parse := _outcome(parse_arith, s)) != (ref := _reference(s))]
    assert not mismatches, mismatches[:10]
    kinds = {_reference(s)[0] for s in strings}
    assert kinds == {"ok", "raises"}  # both outcomes exercised


@pytest.mark.parametrize("text", [
    "1/2", "-1/2", "1/-2", "2-3-4", "2/3/4", "2**3**4", "-2**2", "-(2*3)", "2*(3*4)", "(2*3)(4)*5",
    "2(3)(4)*5", "2(3)", "1+()", "1+...", "1^2", "2//3", "(1-2)//3*4", "007", "00", "1.50", ".5", "5.",
    "3.14159265358979323846264338", "((1)", "(1))", "1+\r2", "(1+\r2)", "1\r+2", "1 . 5", "2*1 . 5",
    "1\x0c+2", "3 × 4", "3 ÷ 4", "٣+1", "1\u00a0+2", "", "  ", "(" * 199 + "1" + ")" * 199,
    "(" * 200 + "1" + ")" * 200, "1" * 5000, " 12 + 3 ",
])
def test_edge_cases_match_parse_expr(text: str) -> None:
    assert _outcome(parse_arith, text) == _reference(text)


@pytest.mark.parametrize("text", ["x+1", "__import__('os')", "1+a", "1,2", "2!", "1=1", "1 % 2", "[1]"])
def test_text_outside_the_alphabet_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="refused"):
        parse_arith(text)


def test_no_eval_is_involved(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    import sympy.parsing.sympy_parser as sp

    text = "(1 + 2.5) / -3 ** 2 - 4 // 3"
    expected = _reference(text)

    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("eval/parse_expr must not be called")

    monkeypatch.setattr(sp, "parse_expr", boom)
    monkeypatch.setattr(sp, "eval_expr", boom)
    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "compile", boom)
    assert _outcome(parse_arith, text) == expected
    assert expected[0] == "ok"


def test_official_scoring_uses_it_in_place_of_parse_expr(monkeypatch: pytest.MonkeyPatch) -> None:
    import math_verify.parser as mp

    from reasoneval.scoring.mathverify_official import official_local

    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("parse_expr must never see model text")

    monkeypatch.setattr(mp, "parse_expr_cached", mp.parse_expr_cached)  # restored after the test
    monkeypatch.setattr(mp, "parse_expr", boom)
    r = official_local("$\\boxed{\\frac{3}{4}}$", "So the result is 3/4")
    assert mp.parse_expr_cached.__module__ == "reasoneval.scoring.mathverify_official"
    assert (r.correct, r.reason) == (True, "equal")
    assert official_local("$\\boxed{\\frac{3}{4}}$", "So the result is 3/5").correct is False
