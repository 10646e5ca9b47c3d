"""Full DFS enumeration of a puzzle's state tree with post-order solvability labels (paper section 2.1).

Nodes are stored in DFS pre-order in flat lists, so a node's descendants follow it and a parent always has a
smaller index than its children. ``solvable[i] = is_goal(state) or any(solvable[c] for c in children[i])``.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .engines.base import Engine

S = TypeVar("S")


class TreeTooLarge(RuntimeError):
    def __init__(self, limit: int):
        super().__init__(f"the tree has more than {limit} nodes")
        self.limit = limit


@dataclass
class Tree(Generic[S]):
    states: list[S] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)  # -1 for the root
    depth: list[int] = field(default_factory=list)
    move: list[Any] = field(default_factory=list)  # the move from the parent (None for the root)
    children: list[list[int]] = field(default_factory=list)
    solvable: list[bool] = field(default_factory=list)
    goal: list[bool] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.states)

    def path(self, i: int) -> list[int]:
        """Node indices root..i."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent[i]
        return out[::-1]

    def index(self, engine: Engine[S, Any]) -> dict[Hashable, list[int]]:
        """Equality key -> node indices (a state may occur more than once, e.g. Grid's unchanged tables)."""
        out: dict[Hashable, list[int]] = {}
        for i, s in enumerate(self.states):
            out.setdefault(engine.key(s), []).append(i)
        return out

    @property
    def max_depth(self) -> int:
        return max(self.depth) if self.depth else 0


def build_tree(engine: Engine[S, Any], root: S | None = None, max_nodes: int | None = None) -> Tree[S]:
    """Enumerate every state reachable from ``root`` (default ``engine.root()``) by the engine's DFS moves.

    Raises TreeTooLarge when more than ``max_nodes`` nodes would be created.
    """
    tree: Tree[S] = Tree()
    start = engine.root() if root is None else root
    limit = max_nodes if max_nodes is not None else sys.maxsize

    def add(state: S, parent: int, move: Any) -> int:
        if len(tree.states) >= limit:
            raise TreeTooLarge(limit)
        i = len(tree.states)
        tree.states.append(state)
        tree.parent.append(parent)
        tree.depth.append(tree.depth[parent] + 1 if parent >= 0 else 0)
        tree.move.append(move)
        tree.children.append([])
        tree.solvable.append(False)
        tree.goal.append(False)
        if parent >= 0:
            tree.children[parent].append(i)
        return i

    # iterative pre-order DFS: children are numbered in the engine's move order
    add(start, -1, None)
    stack: list[tuple[int, list[Any], int]] = [(0, list(engine.moves(start)), 0)]
    while stack:
        i, moves, k = stack[-1]
        if k == len(moves):
            stack.pop()
            continue
        stack[-1] = (i, moves, k + 1)
        child = engine.apply(tree.states[i], moves[k])
        j = add(child, i, moves[k])
        stack.append((j, list(engine.moves(child)), 0))

    for i in range(len(tree.states) - 1, -1, -1):  # reverse pre-order = children before parents
        kids = tree.children[i]
        if kids:
            tree.solvable[i] = any(tree.solvable[c] for c in kids)
        else:
            tree.goal[i] = engine.is_goal(tree.states[i])
            tree.solvable[i] = tree.goal[i]
    return tree


def count_nodes(engine: Engine[Any, Any], max_nodes: int) -> int | None:
    """Node count of the full tree without storing it (None when above ``max_nodes``)."""
    n = 0
    stack = [engine.root()]
    while stack:
        s = stack.pop()
        n += 1
        if n > max_nodes:
            return None
        stack.extend(engine.apply(s, m) for m in engine.moves(s))
    return n
