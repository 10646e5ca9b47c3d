"""Whether SymPy would find a Game-of-24 answer equal to 24, decided without SymPy and without ``eval``.

The official end-to-end scorer runs ``sympy.simplify(expression) == 24`` on the model's text, which
``sympify``-s it: newlines removed, Python's tokenizer, ``^`` read as ``**``, integers as exact
``Integer`` and decimals as ``Float``, then Python's ``eval``. Executing model output is not done here:
the text goes through Python's tokenizer and ``ast.parse`` (which run nothing) and the arithmetic tree is
evaluated with :class:`fractions.Fraction` (exact) and ``float`` (SymPy's 53-bit ``Float``), following
SymPy's number rules (checked against SymPy 1.14, ``tests/finereason/test_fr_official_crafted.py``):

* a ``Float`` operand makes a ``Float`` result, which SymPy (1.13 and later) never finds equal to the Integer
  24 - except that a result equal to zero is SymPy's exact ``Zero`` (``0*1.5 + 24`` and
  ``(0.5 - 0.5)*3 + 24`` are 24), ``x**0`` and ``1**x`` are exact 1, ``a // b`` is an exact Integer;
* ``x / 0`` is ``zoo`` (``0 / 0`` is ``nan``): never 24, but ``finite / zoo`` and ``zoo**-1`` are 0 and
  ``zoo**0`` is 1; ``zoo * 0`` is ``nan``;
* ``a ** (p/q)`` is exact when the root is rational, as SymPy's automatic simplification makes it;
* ``//`` and ``%`` are floor division and ``Mod`` (Python's signs); an integer ``//`` or ``%`` by zero
  raises in SymPy (a ``parsing error`` upstream, as every exception is), and so does a Float divided by a
  Float zero (a ``0.0`` literal; an Integer divided by it is ``zoo``);
* a text Python cannot tokenize or parse (``$``, ``×``, ``÷``, ``\\cdot``, ``**24**``) is a ``parsing
  error``, as ``sympify`` raises, and so is a number called (``3(4)``: SymPy raises a TypeError).

What SymPy would do with names (symbols, ``sqrt(...)``), factorials (``!``), irrational or complex powers,
``%`` on Floats, Floats beyond a double's range, comparisons or tuples is not reproduced: such an answer is ``unsupported`` and counted wrong (the official
reading evaluates it symbolically: ``x*24/x`` is 24 there). Sizes are bounded: texts over
:data:`MAX_CHARS` characters and powers whose exponent exceeds :data:`MAX_EXPONENT` are ``unsupported`` too.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize
from fractions import Fraction

MAX_CHARS = 10_000
MAX_EXPONENT = 4096

PARSING_ERROR = "parsing error"
UNSUPPORTED = "unsupported"


class _Unsupported(Exception):
    pass


class _Raises(Exception):
    """What SymPy raises on (a number called, an integer division by zero): a parsing error upstream."""


class _Special:
    """SymPy's ``zoo`` (complex infinity) or ``nan``."""

    def __init__(self, name: str) -> None:
        self.name = name


ZOO, NAN = _Special("zoo"), _Special("nan")
_Value = Fraction | float | _Special


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
            if kind == tokenize.NUMBER:
                _check_float_literal(value)
            out.append((kind, value))
    except tokenize.TokenError as exc:
        raise SyntaxError(str(exc)) from None
    return tokenize.untokenize(out)


def _check_float_literal(token: str) -> None:
    """SymPy's Float has an unbounded exponent: a literal that a double cannot hold (``1e400``, ``1e-400``)
    is outside what is reproduced."""
    low = token.lower().replace("_", "")
    if low.startswith(("0x", "0o", "0b")) or low.endswith("j") or not any(c in low for c in ".e"):
        return
    try:
        v = float(low)
    except ValueError:
        return
    mantissa = low.split("e")[0]
    if math.isinf(v) or (v == 0 and any(c in "123456789" for c in mantissa)):
        raise _Unsupported


def _num(value: object) -> _Value:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unsupported
    return Fraction(value) if isinstance(value, int) else float(value)


def _exact(r: Fraction | float, floats: bool, operands: tuple[Fraction | float, ...] = ()) -> _Value:
    """A sum's, product's or quotient's result: SymPy's ``Zero`` when it is zero, a Float when a Float took
    part, else exact. A Float result out of double range (or a product of non-zero Floats that underflows
    to 0) is outside what is reproduced."""
    if floats and (math.isinf(r) or (r == 0 and operands and all(x != 0 for x in operands))):
        raise _Unsupported
    if r == 0:
        return Fraction(0)
    return float(r) if floats else Fraction(r)


def _float_zero(x: _Value) -> bool:
    """SymPy's Float zero (a ``0.0`` literal, not a computed zero): dividing by it raises."""
    return isinstance(x, float) and x == 0


def _finite(*xs: _Value) -> bool:
    return not any(isinstance(x, _Special) for x in xs)


def _add(a: _Value, b: _Value, sign: int) -> _Value:
    if a is NAN or b is NAN or (a is ZOO and b is ZOO):
        return NAN
    if a is ZOO or b is ZOO:
        return ZOO
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    return _exact(a + sign * b, isinstance(a, float) or isinstance(b, float))


def _mul(a: _Value, b: _Value) -> _Value:
    if a is NAN or b is NAN:
        return NAN
    if a is ZOO or b is ZOO:
        other = b if a is ZOO else a
        return NAN if (not isinstance(other, _Special) and other == 0) else ZOO
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    return _exact(a * b, isinstance(a, float) or isinstance(b, float), (a, b))


def _div(a: _Value, b: _Value) -> _Value:
    if _float_zero(b) and isinstance(a, float):
        raise _Raises  # a Float by a Float zero: ZeroDivisionError (an Integer by it is zoo)
    if a is NAN or b is NAN or (a is ZOO and b is ZOO):
        return NAN
    if b is ZOO:
        return Fraction(0)
    if a is ZOO:
        return ZOO
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    if b == 0:
        return NAN if a == 0 else ZOO
    return _exact(a / b, isinstance(a, float) or isinstance(b, float), (a, b))


def _floordiv(a: _Value, b: _Value) -> _Value:
    if _float_zero(b):
        if a is ZOO:
            return ZOO
        if a is NAN or (isinstance(a, Fraction) and a.denominator != 1):
            raise _Unsupported  # (a Rational by a Float zero does not raise)
        raise _Raises  # ZeroDivisionError
    if b is ZOO and _finite(a):
        return Fraction(0)
    if a is ZOO and _finite(b) and b != 0:
        return ZOO
    if not _finite(a, b):
        raise _Unsupported
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    if b == 0:
        if isinstance(a, float):
            return ZOO if a != 0 else NAN
        if a.denominator != 1:
            raise _Unsupported  # a Rational // 0 does not raise
        raise _Raises  # ZeroDivisionError
    q = a / b
    if math.isinf(q):
        raise _Unsupported
    return Fraction(math.floor(q))


def _mod(a: _Value, b: _Value) -> _Value:
    if not isinstance(b, _Special) and b == 0:
        if isinstance(a, float) and isinstance(b, Fraction):
            raise _Unsupported  # a Float modulo an Integer 0: raises or not, depending on the Float
        raise _Raises  # ZeroDivisionError, zoo % 0 included
    if (a is ZOO and _finite(b)) or (b is ZOO and _finite(a)):
        return NAN
    if not _finite(a, b):
        raise _Unsupported
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    if isinstance(a, float) or isinstance(b, float):
        raise _Unsupported  # SymPy's Float Mod (mpmath) differs from the double's in zeros and tiny values
    return a % b


def _pow(a: _Value, b: _Value) -> _Value:
    if isinstance(b, Fraction) and b == 0:
        return Fraction(1)  # x**0 is 1, zoo and nan included
    if a is NAN or b is NAN or b is ZOO:
        return NAN
    if a is ZOO:
        if isinstance(b, Fraction):
            return ZOO if b > 0 else Fraction(0)
        raise _Unsupported
    assert not isinstance(a, _Special) and not isinstance(b, _Special)
    if isinstance(a, Fraction) and a == 1:
        return Fraction(1)
    if isinstance(b, float) and b == 0:
        return 1.0  # a number to the Float 0.0 is the Float 1.0
    if a == 0:
        if b < 0:
            return ZOO
        return 0.0 if isinstance(a, float) else Fraction(0)  # a Float zero stays a Float
    if isinstance(b, float):
        if a < 0:
            raise _Unsupported  # complex
        return _power_float(a, b)
    if isinstance(a, float):
        if b.denominator != 1 and a < 0:
            raise _Unsupported  # complex
        return _power_float(a, b)
    if abs(b.numerator) > MAX_EXPONENT or b.denominator > MAX_EXPONENT:
        raise _Unsupported
    if b.denominator == 1:
        return a ** b.numerator
    if a < 0:
        raise _Unsupported  # a complex root
    q = b.denominator
    num, den = _root(a.numerator, q), _root(a.denominator, q)
    if num is None or den is None:
        raise _Unsupported  # irrational
    return Fraction(num, den) ** b.numerator


def _power_float(a: Fraction | float, b: Fraction | float) -> _Value:
    try:
        r = float(a) ** float(b)
    except (OverflowError, ZeroDivisionError):
        raise _Unsupported from None
    if math.isinf(r) or r == 0 or isinstance(r, complex):
        raise _Unsupported
    return r


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


_BINARY = {ast.Add: lambda a, b: _add(a, b, 1), ast.Sub: lambda a, b: _add(a, b, -1), ast.Mult: _mul,
           ast.Div: _div, ast.FloorDiv: _floordiv, ast.Mod: _mod, ast.Pow: _pow}


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
        if isinstance(v, _Special) or not negative:
            return v
        return -v
    if isinstance(node, ast.Call):
        _eval(node.func)  # a number called, ``3(8)``: SymPy's Integer is not callable (a TypeError)
        raise _Raises
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left), _eval(node.right))
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
    except (_Raises, SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return PARSING_ERROR
    if isinstance(value, _Special | float):
        return "0"
    return "1" if value == 24 else "0"
