"""The Logic-Grid clue language: a tokenizer, a recursive-descent parser and a closure-compiling evaluator.

Clues in the release are stored as Python-like boolean expressions, e.g.
    (T[r(12)][c('names')] == 'Terry' or T[r(12)][c('insurers')] == 'Ambercare') and (T[r('Terry')][c('insurers')] != 'Ambercare')
where ``r(v)`` is the row holding attribute value ``v``, ``c(h)`` the column with header ``h`` and ``T[i][j]``
the cell. Nothing is ever handed to Python's ``eval``; only this grammar is accepted:

    condition  := or_expr
    or_expr    := and_expr ('or' and_expr)*
    and_expr   := not_expr ('and' not_expr)*
    not_expr   := 'not' not_expr | comparison
    comparison := sum (('==' | '!=' | '<' | '>' | '<=' | '>=') sum)*      # chains like Python's
    sum        := unary (('+' | '-') unary)*
    unary      := '-' unary | atom
    atom       := NUMBER | STRING | 'True' | 'False' | '(' or_expr ')' | cell
    cell       := 'T' '[' 'r' '(' (NUMBER | STRING | '-' NUMBER) ')' ']' '[' 'c' '(' STRING ')' ']'

Semantics follow the official evaluator: a value that is not in the table, a header that is not a column and
an empty cell all read as ``''``; comparing/adding incompatible types is an error and an error anywhere makes
the whole condition False. For search the evaluator also runs in a set-valued mode where an unplaced value's
cell or an empty cell reads as the finite set of values a completion could still put there (``Maybe``), and
the result is the *set* of outcomes still possible (T, F, Error) - a sound over-approximation used to prune.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Value = int | float | str | bool

# outcome bits of the three-valued evaluation
T, F, E = 1, 2, 4
ANY = T | F | E


class ClueSyntaxError(ValueError):
    def __init__(self, message: str, text: str, pos: int):
        super().__init__(f"{message} at position {pos} in {text!r}")
        self.pos = pos


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


class _EvalError(Exception):
    pass


# -- AST ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lit:
    value: Value


@dataclass(frozen=True)
class Cell:
    row_value: Value  # the attribute whose row is looked up, r(...)
    column: str  # the header, c(...)


@dataclass(frozen=True)
class Arith:
    op: str  # '+' | '-' | 'neg'
    left: Node
    right: Node | None


@dataclass(frozen=True)
class Compare:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class BoolOp:
    op: str  # 'and' | 'or' | 'not'
    items: tuple[Node, ...]


Node = Lit | Cell | Arith | Compare | BoolOp

# -- tokenizer ----------------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>\d+(?:\.\d+)?)
      | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<op>==|!=|<=|>=|[<>+\-()\[\]])
    )""",
    re.VERBOSE,
)
_KEYWORDS = {"T", "r", "c", "and", "or", "not", "True", "False"}
MAX_CLUE_LEN = 5000


@dataclass(frozen=True)
class Token:
    kind: str  # num | str | name | op | end
    text: str
    pos: int


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_CLUE_LEN:
        raise ClueSyntaxError("clue too long", text[:50] + "...", MAX_CLUE_LEN)
    out: list[Token] = []
    pos = 0
    end = len(text.rstrip())
    while pos < end:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            while text[pos].isspace():
                pos += 1
            raise ClueSyntaxError(f"unexpected character {text[pos]!r}", text, pos)
        kind = m.lastgroup or ""
        tok = m.group(kind)
        if kind == "name" and tok not in _KEYWORDS:
            raise ClueSyntaxError(f"unknown name {tok!r}", text, m.start(kind))
        out.append(Token(kind, tok, m.start(kind)))
        pos = m.end()
    out.append(Token("end", "", end))
    return out


# -- parser -------------------------------------------------------------------------------------------
class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    def peek(self) -> Token:
        return self.toks[self.i]

    def take(self, text: str | None = None, kind: str | None = None) -> Token:
        t = self.toks[self.i]
        if (text is not None and t.text != text) or (kind is not None and t.kind != kind) or t.kind == "end" and text:
            want = text or kind
            raise ClueSyntaxError(f"expected {want!r}, found {t.text or 'end of clue'!r}", self.text, t.pos)
        self.i += 1
        return t

    def at(self, *texts: str) -> bool:
        t = self.peek()
        return t.kind in ("op", "name") and t.text in texts

    def parse(self) -> Node:
        node = self.or_expr()
        if self.peek().kind != "end":
            t = self.peek()
            raise ClueSyntaxError(f"unexpected {t.text!r}", self.text, t.pos)
        return node

    def or_expr(self) -> Node:
        items = [self.and_expr()]
        while self.at("or"):
            self.i += 1
            items.append(self.and_expr())
        return items[0] if len(items) == 1 else BoolOp("or", tuple(items))

    def and_expr(self) -> Node:
        items = [self.not_expr()]
        while self.at("and"):
            self.i += 1
            items.append(self.not_expr())
        return items[0] if len(items) == 1 else BoolOp("and", tuple(items))

    def not_expr(self) -> Node:
        if self.at("not"):
            self.i += 1
            return BoolOp("not", (self.not_expr(),))
        return self.comparison()

    def comparison(self) -> Node:
        left = self.sum()
        pairs: list[Node] = []
        while self.at("==", "!=", "<", ">", "<=", ">="):
            op = self.take().text
            right = self.sum()
            pairs.append(Compare(op, left, right))
            left = right
        if not pairs:
            return left
        return pairs[0] if len(pairs) == 1 else BoolOp("and", tuple(pairs))

    def sum(self) -> Node:
        node = self.unary()
        while self.at("+", "-"):
            op = self.take().text
            node = Arith(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.at("-"):
            self.i += 1
            return Arith("neg", self.unary(), None)
        return self.atom()

    def literal(self) -> Value:
        t = self.peek()
        if t.kind == "num":
            self.i += 1
            return float(t.text) if "." in t.text else int(t.text)
        if t.kind == "str":
            self.i += 1
            return _unquote(t.text)
        if t.text == "-" and self.toks[self.i + 1].kind == "num":
            self.i += 1
            v = self.literal()
            assert not isinstance(v, str)
            return -v
        raise ClueSyntaxError(f"expected a number or string, found {t.text or 'end of clue'!r}", self.text, t.pos)

    def atom(self) -> Node:
        t = self.peek()
        if t.kind in ("num", "str"):
            return Lit(self.literal())
        if t.kind == "name" and t.text in ("True", "False"):
            self.i += 1
            return Lit(t.text == "True")
        if self.at("("):
            self.i += 1
            node = self.or_expr()
            self.take(")")
            return node
        if t.kind == "name" and t.text == "T":
            self.i += 1
            self.take("[")
            self.take("r")
            self.take("(")
            row_value = self.literal()
            self.take(")")
            self.take("]")
            self.take("[")
            self.take("c")
            self.take("(")
            col = self.peek()
            if col.kind != "str":
                raise ClueSyntaxError("c(...) takes a quoted header", self.text, col.pos)
            self.i += 1
            self.take(")")
            self.take("]")
            return Cell(row_value, _unquote(col.text))
        raise ClueSyntaxError(f"unexpected {t.text or 'end of clue'!r}", self.text, t.pos)


def parse(text: str) -> Node:
    """Parse one clue condition; raises ClueSyntaxError (with the position) on anything else."""
    return _Parser(text).parse()


# -- analysis -----------------------------------------------------------------------------------------
def walk(node: Node):
    yield node
    if isinstance(node, Arith):
        yield from walk(node.left)
        if node.right is not None:
            yield from walk(node.right)
    elif isinstance(node, Compare):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, BoolOp):
        for it in node.items:
            yield from walk(it)


def mentions(node: Node) -> list[tuple[Value, str | None]]:
    """Attribute values the clue talks about, in text order: every ``r(v)`` argument (column unknown: None)
    and every literal compared directly with a cell (column = that cell's header)."""
    out: list[tuple[Value, str | None]] = []

    def rec(n: Node) -> None:
        if isinstance(n, Cell):
            out.append((n.row_value, None))
        elif isinstance(n, Compare):
            for side, other in ((n.left, n.right), (n.right, n.left)):
                if isinstance(side, Lit) and isinstance(other, Cell):
                    if not isinstance(side.value, bool):
                        out.append((side.value, other.column))
                else:
                    rec(side)
        elif isinstance(n, Arith):
            rec(n.left)
            if n.right is not None:
                rec(n.right)
        elif isinstance(n, BoolOp):
            for it in n.items:
                rec(it)

    rec(node)
    return out


def headers_used(node: Node) -> set[str]:
    return {n.column for n in walk(node) if isinstance(n, Cell)}


# -- evaluation ---------------------------------------------------------------------------------------
class Maybe:
    """The finite set of values an expression can still take (three-valued search reading)."""

    __slots__ = ("values",)

    def __init__(self, values: tuple[Any, ...]):
        self.values = values

    def __repr__(self) -> str:
        return f"Maybe{self.values!r}"


class Context:
    """What a condition reads: ``rows[row_of[v]][column]``.

    This base class is the official two-valued reading: a value not in the table (``r(v)`` fails) and an
    empty cell both read as ``''``. ``SearchContext``-style subclasses override ``unplaced`` and ``empty_cell``
    to return a ``Maybe`` (or UNKNOWN) for what a completion could still put there.
    """

    __slots__ = ("row_of", "rows")

    def __init__(self, row_of: dict[Any, int], rows: Sequence[Sequence[Any]]):
        self.row_of = row_of
        self.rows = rows

    def unplaced(self, row_value: Any, col: int) -> Any:
        return ""

    def empty_cell(self, row: int, col: int) -> Any:
        return ""


ValueFn = Callable[[Context], Any]
MaskFn = Callable[[Context], int]

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
}


def _options(x: Any) -> tuple[Any, ...]:
    return x.values if type(x) is Maybe else (x,)


def _lift2(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """Apply an arithmetic operator to possibly-uncertain operands."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if type(a) is not Maybe and type(b) is not Maybe:
        try:
            return fn(a, b)
        except TypeError as exc:
            raise _EvalError from exc
    out = set()
    for x in _options(a):
        for y in _options(b):
            try:
                out.add(fn(x, y))
            except TypeError:
                return UNKNOWN
    return Maybe(tuple(out))


def _compare(fn: Callable[[Any, Any], bool], a: Any, b: Any) -> int:
    if a is UNKNOWN or b is UNKNOWN:
        return ANY
    mask = 0
    for x in _options(a):
        for y in _options(b):
            try:
                mask |= T if fn(x, y) else F
            except TypeError:
                mask |= E
            if mask == ANY:
                return mask
    return mask


def _value_fn(node: Node, columns: Mapping[str, int]) -> ValueFn:
    if isinstance(node, Lit):
        v = node.value
        return lambda ctx: v
    if isinstance(node, Cell):
        rv = node.row_value
        col = columns.get(node.column)
        if col is None:  # unknown header: the official evaluator reads ''
            return lambda ctx: ""

        def cell(ctx: Context) -> Any:
            r = ctx.row_of.get(rv)
            if r is None:
                return ctx.unplaced(rv, col)
            v = ctx.rows[r][col]
            return ctx.empty_cell(r, col) if v == "" else v
        return cell
    if isinstance(node, Arith):
        left = _value_fn(node.left, columns)
        if node.op == "neg":
            def neg(ctx: Context) -> Any:
                return _lift2(operator.sub, 0, left(ctx))
            return neg
        assert node.right is not None
        right = _value_fn(node.right, columns)
        fn = operator.add if node.op == "+" else operator.sub
        return lambda ctx: _lift2(fn, left(ctx), right(ctx))
    mask = _mask_fn(node, columns)

    def as_value(ctx: Context) -> Any:
        m = mask(ctx)
        if m == T:
            return True
        if m == F:
            return False
        if m == E:
            raise _EvalError
        return UNKNOWN
    return as_value


def _mask_fn(node: Node, columns: Mapping[str, int]) -> MaskFn:
    if isinstance(node, Compare):
        left, right = _value_fn(node.left, columns), _value_fn(node.right, columns)
        fn = _CMP[node.op]

        def compare(ctx: Context) -> int:
            try:
                a, b = left(ctx), right(ctx)
            except _EvalError:
                return E
            if type(a) is Maybe or type(b) is Maybe or a is UNKNOWN or b is UNKNOWN:
                return _compare(fn, a, b)
            try:
                return T if fn(a, b) else F
            except TypeError:
                return E
        return compare
    if isinstance(node, BoolOp):
        items = [_mask_fn(n, columns) for n in node.items]
        if node.op == "not":
            inner = items[0]

            def negate(ctx: Context) -> int:
                m = inner(ctx)
                return (m & E) | (T if m & F else 0) | (F if m & T else 0)
            return negate
        if node.op == "and":
            def conj(ctx: Context) -> int:
                out = 0
                for fn in items:
                    m = fn(ctx)
                    out |= m & (E | F)
                    if not m & T:
                        return out
                return out | T
            return conj

        def disj(ctx: Context) -> int:
            out = 0
            for fn in items:
                m = fn(ctx)
                out |= m & (E | T)
                if not m & F:
                    return out
            return out | F
        return disj
    value = _value_fn(node, columns)

    def truthy(ctx: Context) -> int:
        try:
            v = value(ctx)
        except _EvalError:
            return E
        if v is UNKNOWN:
            return T | F
        mask = 0
        for x in _options(v):
            mask |= T if x else F
        return mask
    return truthy


@dataclass(frozen=True)
class Condition:
    """A parsed, compiled clue condition."""

    text: str
    node: Node
    mask: MaskFn

    def holds(self, ctx: Context) -> bool:
        """Official two-valued reading (the context never answers UNKNOWN): True iff it evaluates to True."""
        return self.mask(ctx) == T

    def possible(self, ctx: Context) -> bool:
        """Search reading (uncertain values as ``Maybe``/UNKNOWN): some completion may still make it True."""
        return bool(self.mask(ctx) & T)


def compile_condition(text: str, columns: Mapping[str, int]) -> Condition:
    """Parse and compile ``text`` for a table whose header -> column index map is ``columns``."""
    node = parse(text)
    return Condition(text, node, _mask_fn(node, columns))
