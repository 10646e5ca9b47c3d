"""What every puzzle engine provides, and the shared label constants."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Generic, Protocol, TypeVar

SOLVABLE = "Solvable"
UNSOLVABLE = "Unsolvable"

S = TypeVar("S")
M = TypeVar("M")

# Move-check outcomes (``Engine.check_forward``): None means "a valid minimal forward move".
MULTIPLE_MOVES = "Multiple Moves"
INVALID_MOVE = "Invalid Move"


class StateError(ValueError):
    """A JSON value that is not a well-formed state of this puzzle (wrong shape or type)."""


class Engine(Protocol, Generic[S, M]):
    """One puzzle instance: its rules, minimal moves and an exact solver.

    A state's *children* are the rule-valid states one minimal forward move away, in the release's DFS order;
    backtracking is the reverse edge to the parent, not a separate child.
    """

    puzzle: str

    def root(self) -> S: ...

    def moves(self, state: S) -> Sequence[M]:
        """Forward moves of the DFS tree, in order (all rule-valid)."""
        ...

    def apply(self, state: S, move: M) -> S: ...

    def is_goal(self, state: S) -> bool: ...

    def is_valid(self, state: S) -> bool:
        """Rule check: the state breaks no puzzle rule and is reachable from the root by forward moves."""
        ...

    def is_solvable(self, state: S) -> bool:
        """Exact: a goal state is reachable from ``state`` by forward moves."""
        ...

    def check_forward(self, state: S, nxt: S) -> str | None:
        """None if ``nxt`` is one valid minimal forward move from ``state`` (any, not only the DFS's next
        cell/vertex/clue), else ``MULTIPLE_MOVES`` or ``INVALID_MOVE``."""
        ...

    def key(self, state: S) -> Hashable:
        """Equality key: two states with the same key are the same puzzle state."""
        ...

    def to_json(self, state: S) -> Any: ...

    def from_json(self, obj: Any) -> S: ...


def children(engine: Engine[S, M], state: S) -> list[S]:
    return [engine.apply(state, m) for m in engine.moves(state)]


def is_backtrack(engine: Engine[S, M], state: S, prev: S) -> bool:
    """True when ``prev`` is one minimal *backward* move from ``state`` (erase one digit / colour, un-apply
    one operation / clue): exactly the reverse of a valid forward move ``prev -> state``."""
    return engine.check_forward(prev, state) is None


def label(solvable: bool) -> str:
    return SOLVABLE if solvable else UNSOLVABLE
