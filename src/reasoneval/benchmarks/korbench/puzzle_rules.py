"""Per-rule Puzzle comparators (spec §5.2 case 8), on the inner ``[[...]]`` texts of response and gold.

Rules 9 (Math Path) and 10 (24 points) check validity rather than equality; the reference evaluates the
response with Python ``eval``. Here :mod:`reasoneval.scoring.safe_arith` does that job: in official mode it
reproduces ``eval``'s numeric results (float true division included), and anything ``eval`` would reject —
or anything that is not plain arithmetic, such as ``__import__('os')...`` — is simply a wrong answer.
Nothing a model writes is ever executed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reasoneval.scoring.safe_arith import ArithError, evaluate

_NON_ALPHA = re.compile(r"[^A-Za-z]")
_NON_WORD = re.compile(r"\W+")
_SPACES = re.compile(r"\s+")
_OPS = re.compile(r"[+\-*/]")
_RESULT = re.compile(r"=\s*(-?\d+)")
_VECTOR_STRIP = re.compile(r"[,\s\[\]]+")
_WORDS = re.compile(r"[A-Za-z]+")

Comparator = Callable[[str, str, bool], bool]  # (response, gold, corrected) -> correct


def _letters(s: str) -> str:
    return _NON_ALPHA.sub("", s).lower()


def word_teaser(resp: str, gold: str, corrected: bool) -> bool:  # rule 1
    return _letters(resp) == _letters(gold)


def roots_affixes(resp: str, gold: str, corrected: bool) -> bool:  # rule 2
    options = gold.split(",")
    if corrected:
        options = [_letters(o) for o in options]
    return _letters(resp) in options


def connect_words(resp: str, gold: str, corrected: bool) -> bool:  # rule 3
    words = sorted(w for w in _NON_WORD.split(resp.lower()) if w)
    expected = sorted(gold.split(" ") if not corrected else (w for w in _NON_WORD.split(gold.lower()) if w))
    return words == expected


def anagram(resp: str, gold: str, corrected: bool) -> bool:  # rule 4
    word = _letters(resp)
    if corrected:  # whole listed word, not any substring (the reference accepts "" and fragments)
        return bool(word) and word in {w.lower() for w in _WORDS.findall(gold)}
    return word in gold


def crypto_math(resp: str, gold: str, corrected: bool) -> bool:  # rule 5
    r = sorted(_SPACES.sub("", resp).split(","))
    g = sorted((_SPACES.sub("", gold) if corrected else gold).split(","))
    return r == g


def _normalise_ops(s: str, corrected: bool) -> str:
    s = s.replace("×", "*").replace("−", "-")
    if corrected:
        s = s.replace("÷", "/").replace("·", "*")
    return s


def _value(expr: str, corrected: bool) -> object:
    try:
        return evaluate(expr, exact=corrected)
    except ArithError:
        return None


def math_path(resp: str, gold: str, corrected: bool) -> bool:  # rule 9
    resp = _normalise_ops(resp, corrected)
    gold = _normalise_ops(gold, corrected)
    if _OPS.findall(resp.split("=")[0]) != _OPS.findall(gold.split("=")[0]):
        return False
    m = _RESULT.search(gold)
    if m is None:
        return False
    v = _value(resp.split("=")[0], corrected)
    return v is not None and v == int(m.group(1))


def twenty_four(resp: str, gold: str, corrected: bool) -> bool:  # rule 10
    lhs = _normalise_ops(resp, corrected).split("=")[0]
    gold_lhs = gold.split("\n")[0].split("=")[0]
    if corrected:
        numbers = sorted(re.findall(r"\d+", lhs))
        if numbers != sorted(re.findall(r"\d+", gold_lhs)):
            return False
    elif sorted(_NON_WORD.sub("", lhs)) != sorted(_NON_WORD.sub("", gold_lhs)):
        return False
    v = _value(lhs, corrected)
    return v is not None and v == 24


def vector(resp: str, gold: str, corrected: bool) -> bool:  # rule 18
    return _VECTOR_STRIP.sub("", resp) == _VECTOR_STRIP.sub("", gold)


def general(resp: str, gold: str, corrected: bool) -> bool:  # every other rule
    return _NON_WORD.sub("", resp) == _NON_WORD.sub("", gold)


METHODS: dict[str, Comparator] = {
    "1": word_teaser, "2": roots_affixes, "3": connect_words, "4": anagram, "5": crypto_math,
    "9": math_path, "10": twenty_four, "18": vector,
}  # fmt: skip


def compare(rule_id: str, resp: str, gold: str, corrected: bool = False) -> tuple[bool, str]:
    fn = METHODS.get(rule_id, general)
    return fn(resp, gold, corrected), f"puzzle:{fn.__name__}"
