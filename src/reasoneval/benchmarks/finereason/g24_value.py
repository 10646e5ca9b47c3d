"""Whether SymPy would find a Game-of-24 answer equal to 24, decided without SymPy and without ``eval``.

The official end-to-end scorer runs ``sympy.simplify(expression) == 24`` on the model's text, which
``sympify``-s it: newlines removed, Python's tokenizer, ``^`` read as ``**``, integers as exact
``Integer`` and decimals as ``Float``, then Python's ``eval``. Executing model output is not done here:
the text goes through Python's tokenizer and ``ast.parse`` (which run nothing) and the arithmetic tree is
evaluated exactly with :class:`fractions.Fraction`, with SymPy's meaning of each case:

* ``x / 0`` is ``zoo`` (``0 / 0`` is ``nan``) and never 24, except ``finite / zoo``, which is 0;
* any ``Float`` operand makes a ``Float`` result, which SymPy (1.13 and later) never finds equal to the
  Integer 24;
* ``a ** (p/q)`` is exact when the root is rational, as SymPy's automatic simplification makes it;
* ``//`` and ``%`` are floor division and ``Mod`` (Python's signs);
* a text Python cannot tokenize or parse (``$``, ``×``, ``÷``, ``\\cdot``, ``**24**``) is a ``parsing
  error``, as ``sympify`` raises, and so is a number called (``3(4)``: SymPy raises a TypeError).

What SymPy would do with names (symbols, ``sqrt(...)``), factorials (``!``), irrational powers, complex
numbers, comparisons or tuples is not reproduced: such an answer is ``unsupported`` and counted wrong (the
official reading evaluates it symbolically). Sizes are bounded: texts over :data:`MAX_CHARS` characters and
powers whose exponent exceeds :data:`MAX_EXPONENT` are ``unsupported`` too.
"""

from __future__ import annotations

import ast
import io
import tokenize
from fractions import Fraction

MAX_CHARS = 10_000
MAX_EXPONENT = 4096

PARSING_ERROR = "parsing error"
UNSUPPORTED = "unsupported"


class _Unsupported(Exception):
    pass


class _NotCallable(Exception):
    pass


class _Zoo:
    """SymPy's ``zoo`` (complex infinity) and ``nan``: never 24; ``finite / zoo`` is 0."""

    def __init__(self, nan: bool) -> None:
        self.nan = nan


_Value = Fraction | float | _Zoo


def _tokens(text: str) -> str:
    """The text as SymPy's ``parse_expr`` hands it to Python: ``^`` read as ``**``; an ``ERRORTOKEN`` (``$``,
    ``×``, a backslash) or a ``TokenError`` (unbalanced brackets) is a parsing error; a ``!`` (SymPy's
    factorial) is outside what is reproduced. Names stay names: a text that does not parse with them does
    not parse with SymPy's symbols either; one that does is not evaluated (:func:`_eval`)."""
    out: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, value = tok.type, tok.string
            if kind == tokenize.ERRORTOKEN:
                if value.strip() == "":
                    continue
                if value == "!":
                    raise _Unsupported
                raise SyntaxError(value)
            if kind == tokenize.OP and value == "!":
                raise _Unsupported
            if kind == tokenize.OP and value == "^":
                value = "**"
            out.append((kind, value))
    except tokenize.TokenError as exc:
        raise SyntaxError(str(exc)) from None
    return tokenize.untokenize(out)


def _num(value: object) -> _Value:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unsupported
    return Fraction(value) if isinstance(value, int) else float(value)


def _div(a: _Value, b: _Value) -> _Value:
    if isinstance(b, _Zoo):
        if isinstance(a, _Zoo) or b.nan:
            return _Zoo(True)
        return Fraction(0)
    if isinstance(a, _Zoo):
        return a
    if b == 0:
        return _Zoo(a == 0)
    return a / b


def _pow(a: _Value, b: _Value) -> _Value:
    if isinstance(a, _Zoo) or isinstance(b, _Zoo):
        raise _Unsupported
    if isinstance(a, float) or isinstance(b, float):
        return float("nan")  # a Float result: never equal to the Integer 24
    if abs(b.numerator) > MAX_EXPONENT or b.denominator > MAX_EXPONENT:
        raise _Unsupported
    if a == 0 and b < 0:
        return _Zoo(False)
    if b.denominator == 1:
        return a ** b.numerator
    if a < 0:
        raise _Unsupported  # a complex root
    q = b.denominator
    num, den = _root(a.numerator, q), _root(a.denominator, q)
    if num is None or den is None:
        raise _Unsupported  # irrational
    return Fraction(num, den) ** b.numerator


def _root(n: int, q: int) -> int | None:
    """The exact integer q-th root of n >= 0, or None."""
    if n < 2:
        return n
    r = round(n ** (1.0 / q)) if n.bit_length() < 1000 else None
    if r is None:
        lo, hi = 0, 1 << (n.bit_length() // q + 1)
        while lo < hi:
            mid = (lo + hi) // 2
            if mid ** q < n:
                lo = mid + 1
            else:
                hi = mid
        r = lo
    for c in (r - 1, r, r + 1):
        if c >= 0 and c ** q == n:
            return c
    return None


def _eval(node: ast.AST) -> _Value:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        return _num(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        negative = False
        while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):  # a long chain of
            negative ^= isinstance(node.op, ast.USub)  # signs is walked in a loop, not by recursion
            node = node.operand
        v = _eval(node)
        if isinstance(v, _Zoo):
            return v
        return -v if negative else v
    if isinstance(node, ast.Call):
        _eval(node.func)  # a number called, ``3(8)``: SymPy's Integer is not callable (a TypeError)
        raise _NotCallable
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left), _eval(node.right)
        op = node.op
        if isinstance(op, ast.Div):
            return _div(a, b)
        if isinstance(op, ast.Pow):
            return _pow(a, b)
        if isinstance(a, _Zoo) or isinstance(b, _Zoo):
            return _Zoo(True)
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.FloorDiv | ast.Mod):
            if b == 0:
                return _Zoo(True)
            if isinstance(a, float) or isinstance(b, float):
                return float("nan")
            return Fraction(a // b) if isinstance(op, ast.FloorDiv) else a % b
    raise _Unsupported


def sympy_equals_24(expression: str) -> str:
    """``"1"`` / ``"0"`` as ``str(int(sympy.simplify(expression) == 24))`` gives them, ``"parsing error"``
    where SymPy raises, ``"unsupported"`` outside what is reproduced (see the module docstring)."""
    text = expression.replace("\n", "").strip()
    if len(text) > MAX_CHARS:
        return UNSUPPORTED
    try:
        tree = ast.parse(_tokens(text).strip(), mode="eval")
        value = _eval(tree)
    except _Unsupported:
        return UNSUPPORTED
    except (_NotCallable, SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return PARSING_ERROR
    if isinstance(value, _Zoo) or isinstance(value, float):
        return "0"
    return "1" if value == 24 else "0"
