"""Game of 24: a state is a list of expression strings; a move combines two of them with + - * /.

Release format: the new expression ``"(a op b)"`` (single spaces, full parentheses) goes first, the untouched
expressions follow in their previous order, e.g. ``['2','3','10','12'] -> ['(2 * 10)','3','12']``.
Arithmetic is exact (``Fraction``). Knobs: ``allow_negative`` / ``allow_fractions`` restrict intermediate
values (both allowed by default; the released labels agree with either choice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .arith import Bin, Expr, ExprError, Num, canonical, evaluate, intermediates, leaves, parse
from .base import INVALID_MOVE, MULTIPLE_MOVES, StateError

State = tuple[Expr, ...]
Move = tuple[int, int, str, bool]  # (i, j, op, swapped): combine state[i], state[j] (j first if swapped)
TARGET = Fraction(24)


@dataclass(frozen=True)
class Rules:
    allow_negative: bool = True
    allow_fractions: bool = True

    def ok(self, v: Fraction) -> bool:
        return (self.allow_negative or v >= 0) and (self.allow_fractions or v.denominator == 1)


def _combos(a: Fraction, b: Fraction) -> list[Fraction]:
    out = [a + b, a - b, b - a, a * b]
    if b:
        out.append(a / b)
    if a:
        out.append(b / a)
    return out


@lru_cache(maxsize=65536)
def _solvable_values(values: tuple[Fraction, ...], rules: Rules) -> bool:
    if len(values) == 1:
        return values[0] == TARGET
    n = len(values)
    for i in range(n):
        for j in range(i + 1, n):
            rest = values[:i] + values[i + 1:j] + values[j + 1:]
            for v in _combos(values[i], values[j]):
                if rules.ok(v) and _solvable_values(tuple(sorted(rest + (v,))), rules):
                    return True
    return False


def solvable_numbers(numbers: Sequence[int | Fraction], rules: Rules = Rules()) -> bool:
    return _solvable_values(tuple(sorted(Fraction(x) for x in numbers)), rules)


def parse_state(obj: Any) -> State:
    if not isinstance(obj, Sequence) or isinstance(obj, str) or not obj:
        raise StateError("a Game-of-24 state is a non-empty list of expression strings")
    out = []
    for s in obj:
        if isinstance(s, bool) or not isinstance(s, str | int):
            raise StateError(f"expression {s!r} is not a string")
        try:
            out.append(parse(str(s)))
        except ExprError as exc:
            raise StateError(f"bad expression {s!r}: {exc}") from exc
    return tuple(out)


class Game24Engine:
    puzzle = "game24"

    def __init__(self, numbers: Sequence[int | str], rules: Rules = Rules()):
        try:
            self.numbers = tuple(int(x) for x in numbers)
        except (TypeError, ValueError) as exc:
            raise StateError(f"Game-of-24 numbers must be integers: {numbers!r}") from exc
        if len(self.numbers) < 1:
            raise StateError("need at least one number")
        self.rules = rules
        self._leaf_count = Counter(self.numbers)

    def root(self) -> State:
        return tuple(Num(x) for x in self.numbers)

    def to_json(self, state: State) -> list[str]:
        return [e.render() for e in state]

    def from_json(self, obj: Any) -> State:
        return parse_state(obj)

    def key(self, state: State) -> tuple[str, ...]:
        """Order-insensitive (a multiset of expressions), commutation-insensitive inside + and *."""
        return tuple(sorted(canonical(e) for e in state))

    def _value_ok(self, e: Expr) -> bool:
        return e.val is not None and (self.rules.allow_negative or not e.neg) and (
            self.rules.allow_fractions or not e.frac)

    def moves(self, state: State) -> list[Move]:
        out: list[Move] = []
        seen: set[tuple[str, ...]] = set()
        n = len(state)
        for i in range(n):
            for j in range(i + 1, n):
                for op in ("+", "-", "*", "/"):
                    for swapped in ((False, True) if op in "-/" else (False,)):
                        mv = (i, j, op, swapped)
                        child = self.apply(state, mv)
                        if not self._value_ok(child[0]):
                            continue
                        k = self.key(child)
                        if k not in seen:
                            seen.add(k)
                            out.append(mv)
        return out

    def apply(self, state: State, move: Move) -> State:
        i, j, op, swapped = move
        a, b = (state[j], state[i]) if swapped else (state[i], state[j])
        rest = tuple(e for t, e in enumerate(state) if t not in (i, j))
        return (Bin(op, a, b),) + rest

    def values(self, state: State) -> tuple[Fraction, ...]:
        return tuple(evaluate(e) for e in state)

    def is_valid(self, state: State) -> bool:
        leaf = Counter(x for e in state for x in leaves(e))
        return leaf == self._leaf_count and all(self._value_ok(e) for e in state)

    def is_goal(self, state: State) -> bool:
        return len(state) == 1 and self.is_valid(state) and evaluate(state[0]) == TARGET

    def is_solvable(self, state: State) -> bool:
        if not self.is_valid(state):
            return False
        return _solvable_values(tuple(sorted(self.values(state))), self.rules)

    def check_forward(self, state: State, nxt: State) -> str | None:
        if Counter(x for e in nxt for x in leaves(e)) != self._leaf_count:
            return INVALID_MOVE  # "different numbers"
        if len(nxt) < len(state) - 1 or self.key(nxt) == self.key(state):
            return MULTIPLE_MOVES  # several operations at once, or no operation
        if len(nxt) != len(state) - 1:
            return INVALID_MOVE  # e.g. an un-apply: not a forward move
        before = Counter(canonical(e) for e in state)
        after = Counter(canonical(e) for e in nxt)
        added = list((after - before).elements())
        removed = list((before - after).elements())
        if len(added) != 1 or len(removed) != 2:
            return MULTIPLE_MOVES
        new = next(e for e in nxt if canonical(e) == added[0])
        if not isinstance(new, Bin) or sorted([canonical(new.left), canonical(new.right)]) != sorted(removed):
            return INVALID_MOVE
        return None if self._value_ok(new) else INVALID_MOVE

    def solution(self) -> Expr | None:
        """One expression reaching 24 (depth-first over the tree), or None."""
        state = self.root()
        while len(state) > 1:
            for mv in self.moves(state):
                child = self.apply(state, mv)
                if self.is_solvable(child):
                    state = child
                    break
            else:
                return None
        return state[0] if self.is_goal(state) else None


def check_solution(numbers: Sequence[int], expression: str, rules: Rules = Rules()) -> tuple[bool, str]:
    """End-to-end check of ``expression`` (left side of ``= 24`` already split off): uses exactly
    ``numbers`` and evaluates to 24 exactly. Returns (ok, reason)."""
    try:
        e = parse(expression)
    except ExprError as exc:
        return False, f"unparsable expression: {exc}"
    if Counter(leaves(e)) != Counter(int(x) for x in numbers):
        return False, f"uses numbers {sorted(leaves(e))}, expected {sorted(int(x) for x in numbers)}"
    try:
        if not all(rules.ok(v) for v in intermediates(e)):
            return False, "an intermediate value breaks the arithmetic rules"
        value = evaluate(e)
    except ZeroDivisionError:
        return False, "division by zero"
    return value == TARGET, f"evaluates to {value}"


def make_numbers_set(rng: Any, solvable: bool | None = True, lo: int = 1, hi: int = 13, count: int = 4,
                     rules: Rules = Rules(), max_tries: int = 10000) -> list[int]:
    """Random numbers for a new instance: ``solvable=True`` / ``False`` / ``None`` (either)."""
    for _ in range(max_tries):
        nums = sorted(rng.randint(lo, hi) for _ in range(count))
        if solvable is None or solvable_numbers(nums, rules) == solvable:
            return nums
    raise RuntimeError("no number set matched the request")
