r"""SymPy's ``parse_expr(text, evaluate=False)`` for arithmetic text, without Python ``eval``.

math-verify's expression extraction (``ExprExtractionConfig``) hands ``parse_expr`` (default transformations,
``evaluate=False``) what its regex admits: digits, ``.``, whitespace and ``+ - * × / ^ ( ) ÷`` (``^`` already
replaced by ``**``). ``parse_expr`` turns the text into Python source (each number wrapped as ``Integer(..)`` /
``Float('..')``), rewrites the syntax tree (``EvaluateFalseTransformer``: ``a + b`` -> ``Add(a, b,
evaluate=False)``, ``a - b`` -> ``Add(a, Mul(-1, b))``, ``a / b`` -> ``Mul(a, Pow(b, -1))``, ``a ** b`` ->
``Pow``, ``a ^ b`` -> ``Not(a, b)``; nested ``Add``/``Mul`` calls flattened) and ``eval``-s it.

:func:`parse_arith` builds the same object from the same text with a small recursive-descent parser over that
alphabet and direct calls of the same SymPy constructors: nothing is evaluated as Python. It mirrors the
observable oddities too (tested against the real ``parse_expr`` on generated text): ``//`` is Python's floor
division (its operands are not rewritten), unary ``-``/``+`` are Python's operators on the SymPy object,
``2(3)`` is a call (``TypeError``), ``()`` an empty tuple, ``...`` ``Ellipsis``, ``1 . 5`` an attribute look-up
(``AttributeError``), a leading-zero integer ``007`` two numbers (``SyntaxError``), unbalanced parentheses a
``tokenize.TokenError``, ``\r`` outside parentheses ends the expression (the rest need only be well formed),
``×``/``÷`` and any other character than ASCII digits, ``.``, space, tab, form feed, ``\r``/``\n`` and the
operators a ``SyntaxError``, empty text an ``IndexError``. Text outside the admitted alphabet is refused
(``ValueError``), 200 nested parentheses are Python's ``SyntaxError``. Known gap: ``parse_expr``'s rewrite
fails with ``RecursionError`` on trees some hundreds of levels deep (e.g. a sum of 500 terms), which this parser
builds; such text makes no sense as a final answer, and math-verify takes any failure as "nothing extracted".
"""

from __future__ import annotations

import operator
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from tokenize import TokenError
from typing import Any

EXPR_CHARS = re.compile(r"[\d.\s+\-*×/^()÷]*")
_CORE = frozenset("0123456789.+-*/()^ \t\x0c\r\n")
_MAX_PARENS = 200  # CPython's tokenizer: "too many nested parentheses"


# --- syntax tree (the shapes of Python's ``ast`` that parse_expr's rewrite looks at) ---------------------------

@dataclass
class _Name:
    id: str


@dataclass
class _Const:
    value: Any


@dataclass
class _Tuple:
    pass


@dataclass
class _Call:
    func: Any
    args: list[Any]
    evaluate_false: bool = False


@dataclass
class _BinOp:
    op: str
    left: Any
    right: Any


@dataclass
class _UnaryOp:
    op: str
    operand: Any


@dataclass
class _Attribute:
    value: Any
    attr: str


_AST_NAME = {_Name: "Name", _Const: "Constant", _Tuple: "Tuple", _Call: "Call", _BinOp: "BinOp",
             _UnaryOp: "UnaryOp", _Attribute: "Attribute"}


# --- tokens (as Python's ``tokenize`` splits this alphabet) ---------------------------------------------------

@dataclass
class _Tok:
    kind: str  # NUM | OP | NEWLINE
    text: str


_NUM = re.compile(r"[0-9]+\.[0-9]*|\.[0-9]+|0+|[1-9][0-9]*")
_OPS = ("**", "//", "...", "+", "-", "*", "/", "^", "(", ")", ".")


def _tokens(s: str) -> list[_Tok]:
    out: list[_Tok] = []
    depth, i, n = 0, 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t\x0c":
            i += 1
            continue
        if c in "\r\n":
            if depth == 0:
                out.append(_Tok("NEWLINE", c))
            i += 1
            continue
        m = _NUM.match(s, i)
        if m:
            out.append(_Tok("NUM", m.group()))
            i = m.end()
            continue
        op = next(o for o in _OPS if s.startswith(o, i))
        depth += op == "("
        if depth >= _MAX_PARENS:
            raise SyntaxError("too many nested parentheses")
        depth -= op == ")"
        i += len(op)
        run = op
        while out and out[-1].kind == "OP":  # untokenize glues operators: ``* *`` is read back as ``**``
            run = out.pop().text + run
        while run:
            part = next(o for o in _OPS if run.startswith(o))
            out.append(_Tok("OP", part))
            run = run[len(part):]
    return out


# --- parser (Python's expression grammar restricted to these tokens) -------------------------------------------

@dataclass
class _Parser:
    toks: list[_Tok]
    pos: int = 0

    def peek(self) -> str | None:
        if self.pos < len(self.toks):
            t = self.toks[self.pos]
            return t.text if t.kind == "OP" else t.kind
        return None

    def take(self, text: str) -> bool:
        if self.peek() == text:
            self.pos += 1
            return True
        return False

    def expr(self) -> Any:  # xor_expr
        node = self.arith()
        while self.take("^"):
            node = _BinOp("^", node, self.arith())
        return node

    def arith(self) -> Any:
        node = self.term()
        while (op := self.peek()) in ("+", "-"):
            self.pos += 1
            node = _BinOp(op, node, self.term())
        return node

    def term(self) -> Any:
        node = self.factor()
        while (op := self.peek()) in ("*", "/", "//"):
            self.pos += 1
            node = _BinOp(op, node, self.factor())
        return node

    def factor(self) -> Any:
        if (op := self.peek()) in ("+", "-"):
            self.pos += 1
            return _UnaryOp(op, self.factor())
        return self.power()

    def power(self) -> Any:
        node = self.primary()
        if self.take("**"):
            node = _BinOp("**", node, self.factor())
        return node

    def primary(self) -> Any:
        node = self.atom()
        while True:
            if self.take("("):
                args = [] if self.peek() == ")" else [self.expr()]
                self.expect(")")
                node = _Call(node, args)
            elif self.peek() == "." and self.pos + 1 < len(self.toks) and self.toks[self.pos + 1].kind == "NUM":
                # ``x . 5`` is ``x.Integer(5)`` in the generated source: an attribute look-up, then a call
                self.pos += 1
                num = self.atom()
                node = _Call(_Attribute(node, num.func.id), num.args)
            else:
                return node

    def atom(self) -> Any:
        t = self.toks[self.pos] if self.pos < len(self.toks) else None
        if t is None:
            raise SyntaxError("invalid syntax")
        if t.kind == "NUM":
            self.pos += 1
            if "." in t.text:
                return _Call(_Name("Float"), [_Const(t.text)])
            try:
                value = int(t.text)
            except ValueError as e:  # over Python's digit limit: compile refuses the literal
                raise SyntaxError(str(e)) from None
            return _Call(_Name("Integer"), [_Const(value)])
        if t.text == "...":
            self.pos += 1
            return _Const(Ellipsis)
        if t.text == "(":
            self.pos += 1
            if self.take(")"):
                return _Tuple()
            node = self.expr()
            self.expect(")")
            return node
        raise SyntaxError("invalid syntax")

    def expect(self, text: str) -> None:
        if not self.take(text):
            raise SyntaxError("invalid syntax")


def _statements(toks: list[_Tok]) -> list[Any]:
    """Each logical line parsed (Python compiles them all; parse_expr keeps the first)."""
    lines: list[list[_Tok]] = [[]]
    for t in toks:
        if t.kind == "NEWLINE":
            lines.append([])
        else:
            lines[-1].append(t)
    trees = []
    for line in lines:
        if not line:
            continue
        p = _Parser(line)
        trees.append(p.expr())
        if p.pos != len(line):
            raise SyntaxError("invalid syntax")
    return trees


# --- parse_expr's syntax-tree rewrite (EvaluateFalseTransformer) -----------------------------------------------

_REWRITTEN = {"+": "Add", "*": "Mul", "**": "Pow", "-": "Add", "/": "Mul", "^": "Not"}


def _minus_one() -> _UnaryOp:
    return _UnaryOp("-", _Const(1))


def _flatten(args: list[Any], func: str) -> list[Any]:
    out: list[Any] = []
    for arg in args:
        if isinstance(arg, _Call):
            f = arg.func.func if isinstance(arg.func, _Call) else arg.func
            if not isinstance(f, _Name):
                raise AttributeError(f"'{_AST_NAME[type(f)]}' object has no attribute 'id'")
            if f.id == func:
                out.extend(_flatten(arg.args, func))
            else:
                out.append(arg)
        else:
            out.append(arg)
    return out


def _rewrite(node: Any) -> Any:
    if isinstance(node, _BinOp):
        if node.op not in _REWRITTEN:  # ``//``: left as Python's operator, operands untouched
            return node
        cls = _REWRITTEN[node.op]
        right = _rewrite(node.right)
        left = _rewrite(node.left)
        if node.op == "-":
            right = _Call(_Name("Mul"), [_minus_one(), right], True)
        elif node.op == "/":
            right = _Call(_Name("Pow"), [right, _minus_one()], True)
        args = [left, right]
        if cls in ("Add", "Mul"):
            args = _flatten(args, cls)
        return _Call(_Name(cls), args, True)
    if isinstance(node, _Call):
        return _Call(_rewrite(node.func), [_rewrite(a) for a in node.args], node.evaluate_false)
    if isinstance(node, _UnaryOp):
        return _UnaryOp(node.op, _rewrite(node.operand))
    if isinstance(node, _Attribute):
        return _Attribute(_rewrite(node.value), node.attr)
    return node


# --- evaluation: the SymPy constructors and Python operators the generated code would call ---------------------

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "**": operator.pow, "^": operator.xor}
_UNARY: dict[str, Callable[[Any], Any]] = {"-": operator.neg, "+": operator.pos}


def _names() -> dict[str, Any]:
    from sympy import Add, Float, Integer, Mul, Not, Pow

    return {"Integer": Integer, "Float": Float, "Add": Add, "Mul": Mul, "Pow": Pow, "Not": Not}


def _build(node: Any, names: dict[str, Any]) -> Any:
    if isinstance(node, _Const):
        return node.value
    if isinstance(node, _Name):
        return names[node.id]
    if isinstance(node, _Tuple):
        return ()
    if isinstance(node, _Call):
        f = _build(node.func, names)
        args = [_build(a, names) for a in node.args]
        return f(*args, evaluate=False) if node.evaluate_false else f(*args)
    if isinstance(node, _UnaryOp):
        return _UNARY[node.op](_build(node.operand, names))
    if isinstance(node, _BinOp):
        left = _build(node.left, names)
        return _BINARY[node.op](left, _build(node.right, names))
    if isinstance(node, _Attribute):
        value = _build(node.value, names)
        raise AttributeError(f"'{type(value).__name__}' object has no attribute '{node.attr}'")
    raise AssertionError(node)


def parse_arith(expr: str) -> Any:
    """``parse_expr(expr, evaluate=False)`` for arithmetic text, or the exception type it raises; never eval."""
    if not EXPR_CHARS.fullmatch(expr.replace("**", "^")):
        raise ValueError("refused: not an arithmetic expression")
    s = expr.strip()
    if s.count("(") != s.count(")"):
        raise TokenError("EOF in multi-line statement")
    if not s:
        raise IndexError("list index out of range")
    if any(c not in _CORE for c in s):
        raise SyntaxError("invalid character")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4_000))  # room for 199 nested parentheses (7 frames each)
    try:
        trees = _statements(_tokens(s))
        if not trees:
            raise IndexError("list index out of range")
        return _build(_rewrite(trees[0]), _names())
    finally:
        sys.setrecursionlimit(limit)
