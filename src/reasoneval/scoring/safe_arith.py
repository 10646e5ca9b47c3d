"""A bounded arithmetic evaluator: the safe stand-in for ``eval`` on model-written expressions.

Nothing here ever calls ``eval``/``exec``/``compile``: the input is tokenised by hand and evaluated by a
recursive-descent parser that knows numbers, parentheses and Python's arithmetic operators only.

Two numeric modes:

* ``exact=False`` (default) reproduces what CPython's ``eval`` returns for a pure-arithmetic string, value for
  value: literals become ``int``/``float`` exactly as Python parses them (``08`` is an error, ``00``/``1_0``/
  ``0x18`` are fine), and every operator is applied with Python's own operator on Python numbers, so ``/`` is
  true division, ``8/(3-8/3)`` gives ``23.999999999999993``, ``2**-1`` gives ``0.5``, ``(-8)**(1/3)`` a complex,
  and ``1/0`` an error. Operator precedence and associativity follow the Python grammar (``-2**2 == -4``,
  ``2**3**2 == 512``, ``2^3 == 1``). Layout follows ``eval``'s tokenizer: leading blank lines and indentation
  on the first line are ignored, newlines inside parentheses are ignored, a ``#`` comment runs to end of line,
  a second logical line is an error.
* ``exact=True`` evaluates ``+ - * / **`` and parentheses over :class:`fractions.Fraction` (integer
  exponents only), so ``8/(3-8/3) == 24`` holds.

Anything else Python would accept (names, calls, comparisons, strings, subscripts, imaginary literals, ...)
raises :class:`ArithError`; callers that emulate "``eval`` raised, so the answer is wrong" treat that the same
way. The only inputs on which a verdict can differ from real ``eval`` are non-arithmetic Python such as
``(1<2)*24`` and results beyond the size bounds below (Python would compute a gigantic integer).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

Number = Union[int, float, complex, Fraction]  # noqa: UP007 - runtime alias

MAX_LEN = 2000  # characters of expression text
MAX_DEPTH = 50  # nesting of parentheses / unary operators / right-nested powers
MAX_BITS = 1 << 16  # magnitude bound for integer (and exact rational) intermediate results


class ArithError(ValueError):
    """The text is not a bounded arithmetic expression (Python's eval would raise, or we refuse)."""


@dataclass(frozen=True)
class _Tok:
    kind: str  # "num" | "op" | "(" | ")" | "nl" | "end"
    text: str
    pos: int


_NUM_RE = re.compile(
    r"""
    0[xX](?:_?[0-9a-fA-F])+ | 0[oO](?:_?[0-7])+ | 0[bB](?:_?[01])+
    | (?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?
    | \d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?
    | \d(?:_?\d)*[eE][+-]?\d(?:_?\d)*
    | \d(?:_?\d)*
    """,
    re.VERBOSE,
)
_OPS = ("**", "//", "<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^", "~")
_SPACE = " \t\f"
_NEWLINE = "\r\n"


def _literal(text: str, exact: bool) -> Number:
    is_float = text[:2].lower() not in ("0x", "0o", "0b") and any(c in text for c in ".eE")
    if is_float:
        if exact:
            return Fraction(text.replace("_", ""))
        return float(text)
    try:
        value = int(text, 0)  # int(..., 0) applies Python's literal rules: "08" is rejected, "00" is not
    except ValueError as e:
        raise ArithError(f"invalid integer literal {text!r}") from e
    return Fraction(value) if exact else value


def tokenize(text: str) -> list[_Tok]:
    """Python-compatible tokenisation of the arithmetic subset; raises ArithError on anything else."""
    if len(text) > MAX_LEN:
        raise ArithError(f"expression longer than {MAX_LEN} characters")
    toks: list[_Tok] = []
    depth = 0
    i, n = 0, len(text)
    line_start = False  # at the start of a physical line outside parentheses (indentation matters)
    while i < n:
        if line_start:
            line_start = False
            j, indent = i, 0
            while j < n and text[j] in _SPACE:
                indent = 0 if text[j] == "\f" else indent + 1  # a form feed resets the column
                j += 1
            if j < n and text[j] in _NEWLINE:  # blank line
                i = j
            elif j < n and text[j] == "#":  # comment-only line
                i = j
            elif indent:
                raise ArithError("unexpected indent")
            else:
                i = j
            continue
        c = text[i]
        if c in _SPACE:
            i += 1
            continue
        if c == "\\":  # explicit line joining
            if i + 1 < n and text[i + 1] in _NEWLINE:
                i += 3 if text[i + 1 : i + 3] == "\r\n" else 2
                if i >= n:
                    raise ArithError("unexpected end of input after line continuation")
                continue
            raise ArithError(f"unexpected character after line continuation at {i}")
        if c == "#":
            while i < n and text[i] not in _NEWLINE:
                i += 1
            continue
        if c in _NEWLINE:
            i += 2 if text[i : i + 2] == "\r\n" else 1
            if depth == 0:
                if toks and toks[-1].kind != "nl":
                    toks.append(_Tok("nl", "\n", i))
                line_start = True
            continue
        m = _NUM_RE.match(text, i)
        if m:
            end = m.end()
            if end < n and (text[end].isalnum() or text[end] in "_."):
                raise ArithError(f"invalid literal at {i}")
            toks.append(_Tok("num", m.group(), i))
            i = end
            continue
        if c in "()":
            depth += 1 if c == "(" else -1
            if depth < 0:
                raise ArithError(f"unmatched ')' at {i}")
            toks.append(_Tok(c, c, i))
            i += 1
            continue
        for op in _OPS:
            if text.startswith(op, i):
                toks.append(_Tok("op", op, i))
                i += len(op)
                break
        else:
            raise ArithError(f"unsupported character {c!r} at {i}")
    if depth:
        raise ArithError("unclosed '('")
    while toks and toks[-1].kind == "nl":  # trailing newlines are fine
        toks.pop()
    if any(t.kind == "nl" for t in toks):
        raise ArithError("more than one logical line")
    toks.append(_Tok("end", "", n))
    return toks


def _bits(x: Number) -> int:
    if isinstance(x, bool | int):
        return abs(int(x)).bit_length()
    if isinstance(x, Fraction):
        return max(abs(x.numerator).bit_length(), x.denominator.bit_length())
    return 0


def _check(x: Number) -> Number:
    if _bits(x) > MAX_BITS:
        raise ArithError("intermediate result too large")
    return x


def _pow(a: Number, b: Number, exact: bool) -> Number:
    if exact:
        if not (isinstance(b, Fraction) and b.denominator == 1):
            raise ArithError("non-integer exponent in exact mode")
    if isinstance(b, int | Fraction) and not isinstance(a, float | complex):
        e = abs(int(b)) if not isinstance(b, Fraction) or b.denominator == 1 else 0
        if e and _bits(a) > 1 and (_bits(a) - 1) * e > MAX_BITS:
            raise ArithError("power too large")
    return _check(operator.pow(a, b))


def _shift(fn: Callable[[int, int], int]) -> Callable[[Number, Number], Number]:
    def apply(a: Number, b: Number) -> Number:
        if isinstance(b, int) and isinstance(a, int) and fn is operator.lshift and b > MAX_BITS:
            raise ArithError("shift too large")
        return fn(a, b)  # type: ignore[arg-type]

    return apply


_BINARY: dict[str, Callable[[Number, Number], Number]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,  # type: ignore[dict-item]
    "|": operator.or_,  # type: ignore[dict-item]
    "^": operator.xor,  # type: ignore[dict-item]
    "<<": _shift(operator.lshift),
    ">>": _shift(operator.rshift),
}
_EXACT_OPS = {"+", "-", "*", "/"}
# binary precedence levels, lowest first (Python grammar: | ^ & shifts arith term)
_LEVELS: tuple[tuple[str, ...], ...] = (("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "//", "%"))


class _Parser:
    def __init__(self, toks: list[_Tok], exact: bool) -> None:
        self.toks = toks
        self.i = 0
        self.exact = exact
        self.depth = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithError("expression nested too deeply")

    def binary(self, level: int) -> Number:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek().kind == "op" and self.peek().text in _LEVELS[level]:
            op = self.take().text
            right = self.binary(level + 1)
            if self.exact and op not in _EXACT_OPS:
                raise ArithError(f"operator {op!r} not allowed in exact mode")
            left = self.apply(op, left, right)
        return left

    def apply(self, op: str, a: Number, b: Number) -> Number:
        if op == "*" and _bits(a) + _bits(b) > MAX_BITS:
            raise ArithError("product too large")
        try:
            return _check(_BINARY[op](a, b))
        except ArithError:
            raise
        except (ArithmeticError, TypeError, ValueError, MemoryError) as e:
            raise ArithError(f"{type(e).__name__}: {e}") from e

    def unary(self) -> Number:
        t = self.peek()
        if t.kind == "op" and t.text in ("+", "-", "~"):
            self.take()
            self.enter()
            v = self.unary()
            self.depth -= 1
            if t.text == "~" and self.exact:
                raise ArithError("'~' not allowed in exact mode")
            try:
                return {"+": operator.pos, "-": operator.neg, "~": operator.invert}[t.text](v)  # type: ignore[operator]
            except TypeError as e:
                raise ArithError(f"TypeError: {e}") from e
        return self.power()

    def power(self) -> Number:
        base = self.atom()
        if self.peek().kind == "op" and self.peek().text == "**":
            self.take()
            self.enter()
            exp = self.unary()  # right operand of ** is a u_expr (allows 2**-1, right-assoc)
            self.depth -= 1
            try:
                return _pow(base, exp, self.exact)
            except ArithError:
                raise
            except (ArithmeticError, TypeError, ValueError, MemoryError) as e:
                raise ArithError(f"{type(e).__name__}: {e}") from e
        return base

    def atom(self) -> Number:
        t = self.take()
        if t.kind == "num":
            v = _literal(t.text, self.exact)
        elif t.kind == "(":
            if self.peek().kind == ")":
                raise ArithError("empty parentheses")
            self.enter()
            v = self.binary(0)
            self.depth -= 1
            if self.take().kind != ")":
                raise ArithError(f"expected ')' at {t.pos}")
        else:
            raise ArithError(f"unexpected {t.text or 'end of input'!r} at {t.pos}")
        if self.peek().kind in ("(", "num"):  # "2(3)" is a call in Python (TypeError), "2 3" a syntax error
            raise ArithError(f"implicit multiplication at {self.peek().pos}")
        return v


def evaluate(text: str, *, exact: bool = False) -> Number:
    """Value of an arithmetic expression; raises ArithError where Python's eval would raise (or we refuse)."""
    if not isinstance(text, str):
        raise ArithError("not a string")
    body = text.lstrip(" \t")  # eval() strips leading spaces and tabs
    toks = tokenize(body)
    if toks[0].kind == "end":
        raise ArithError("empty expression")
    p = _Parser(toks, exact)
    try:
        value = p.binary(0)
    except RecursionError as e:  # defensive: MAX_DEPTH keeps us far below the interpreter limit
        raise ArithError("expression nested too deeply") from e
    if p.peek().kind != "end":
        raise ArithError(f"unexpected {p.peek().text!r} at {p.peek().pos}")
    return value


def equals(text: str, target: int | Fraction, *, exact: bool = False) -> bool:
    """``evaluate(text) == target``, with any evaluation failure meaning False."""
    try:
        return bool(evaluate(text, exact=exact) == target)
    except ArithError:
        return False
