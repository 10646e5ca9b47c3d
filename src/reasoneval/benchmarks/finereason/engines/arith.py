"""Safe arithmetic expressions for the Game of 24: tokenizer, recursive-descent parser, exact evaluator.

Grammar (no names, no calls, no unary operators; ``x``/``×``/``÷``/``−`` are read as ``*``/``*``/``/``/``-``):
    expr   := term (('+' | '-') term)*
    term   := atom (('*' | '/') atom)*
    atom   := INTEGER | '(' expr ')' | '[' expr ']'
Values are ``fractions.Fraction``; nothing is ever passed to ``eval``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

OPS = ("+", "-", "*", "/")
_ALIASES = {"×": "*", "x": "*", "X": "*", "·": "*", "∗": "*", "÷": "/", "−": "-", "–": "-", "—": "-"}
_TOKEN = re.compile(r"\s*(?:(\d+)|([-+*/()\[\]×xX·∗÷−–—]))")
MAX_LEN = 500  # characters; Game-of-24 expressions are short


class ExprError(ValueError):
    pass


@dataclass(frozen=True)
class Num:
    value: int

    def render(self) -> str:
        return str(self.value)

    @property
    def val(self) -> Fraction | None:
        return Fraction(self.value)

    @property
    def canon(self) -> str:
        return str(self.value)

    neg = False  # some intermediate result is negative
    frac = False  # some intermediate result is not an integer


def _combine(op: str, a: Fraction | None, b: Fraction | None) -> Fraction | None:
    if a is None or b is None:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b if b else None


@dataclass(frozen=True)
class Bin:
    """``(left op right)``; its value, canonical form and intermediate-value flags are computed once."""

    op: str
    left: Expr
    right: Expr
    val: Fraction | None = field(init=False, compare=False, repr=False)  # None: division by zero inside
    canon: str = field(init=False, compare=False, repr=False)
    neg: bool = field(init=False, compare=False, repr=False)
    frac: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        v = _combine(self.op, self.left.val, self.right.val)
        object.__setattr__(self, "val", v)
        left, right = self.left.canon, self.right.canon
        if self.op in "+*" and right < left:
            left, right = right, left
        object.__setattr__(self, "canon", f"({left} {self.op} {right})")
        object.__setattr__(self, "neg", self.left.neg or self.right.neg or (v is not None and v < 0))
        object.__setattr__(self, "frac", self.left.frac or self.right.frac or (v is not None and v.denominator != 1))

    def render(self) -> str:
        return f"({self.left.render()} {self.op} {self.right.render()})"


Expr = Num | Bin


def evaluate(e: Expr) -> Fraction:
    """Exact value; raises ZeroDivisionError on division by zero."""
    v = e.val
    if v is None:
        raise ZeroDivisionError("division by zero in expression")
    return v


def intermediates(e: Expr) -> list[Fraction]:
    """Values of every operation node, innermost first (raises ZeroDivisionError)."""
    if isinstance(e, Num):
        return []
    return intermediates(e.left) + intermediates(e.right) + [evaluate(e)]


def leaves(e: Expr) -> list[int]:
    if isinstance(e, Num):
        return [e.value]
    return leaves(e.left) + leaves(e.right)


def canonical(e: Expr) -> str:
    """Rendering with the operands of + and * sorted, so (a + b) and (b + a) compare equal."""
    return e.canon


def tokenize(text: str) -> list[str]:
    if len(text) > MAX_LEN:
        raise ExprError("expression too long")
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExprError(f"unexpected character {text[pos:pos + 1]!r} at {pos}")
        tok = m.group(1) or m.group(2)
        out.append(_ALIASES.get(tok, tok))
        pos = m.end()
    return out


def parse(text: str) -> Expr:
    toks = tokenize(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def atom() -> Expr:
        nonlocal pos
        t = peek()
        if t is None:
            raise ExprError("unexpected end of expression")
        if t.isdigit():
            pos += 1
            return Num(int(t))
        if t in "([":
            close = ")" if t == "(" else "]"
            pos += 1
            e = expr()
            if peek() != close:
                raise ExprError(f"missing {close!r}")
            pos += 1
            return e
        raise ExprError(f"unexpected token {t!r}")

    def term() -> Expr:
        nonlocal pos
        e = atom()
        while peek() in ("*", "/"):
            op = toks[pos]
            pos += 1
            e = Bin(op, e, atom())
        return e

    def expr() -> Expr:
        nonlocal pos
        e = term()
        while peek() in ("+", "-"):
            op = toks[pos]
            pos += 1
            e = Bin(op, e, term())
        return e

    result = expr()
    if pos != len(toks):
        raise ExprError(f"unexpected token {toks[pos]!r}")
    return result
