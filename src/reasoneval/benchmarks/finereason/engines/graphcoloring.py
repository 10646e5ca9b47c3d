"""Graph Coloring: colour vertices 1..k (0 = uncoloured) so that no edge joins two equal colours.

Root (as in the official ``GraphColoringTree``): vertex 0 pre-coloured with colour 1. DFS order (matches all
500 released states): colour the lowest-index uncoloured vertex with each colour not used by a neighbour, in
ascending order. k is the chromatic number.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .base import INVALID_MOVE, MULTIPLE_MOVES, StateError

Coloring = tuple[int, ...]
Move = tuple[int, int]  # (vertex, colour)


def parse_graph(adj: Any) -> list[list[int]]:
    if not isinstance(adj, Sequence) or isinstance(adj, str) or not adj:
        raise StateError("a graph is a non-empty adjacency list (list of lists of vertex indices)")
    n = len(adj)
    out: list[list[int]] = []
    for v, nbrs in enumerate(adj):
        if not isinstance(nbrs, Sequence) or isinstance(nbrs, str):
            raise StateError(f"adjacency entry {v} is not a list")
        row = []
        for u in nbrs:
            if isinstance(u, bool) or not isinstance(u, int) or not 0 <= u < n or u == v:
                raise StateError(f"adjacency entry {v} has a bad neighbour {u!r}")
            row.append(u)
        out.append(row)
    for v, nbrs in enumerate(out):
        for u in nbrs:
            if v not in out[u]:
                raise StateError(f"graph is not symmetric: {v}->{u} but not {u}->{v}")
    return out


def parse_coloring(obj: Any, n: int) -> Coloring:
    if not isinstance(obj, Sequence) or isinstance(obj, str) or len(obj) != n:
        raise StateError(f"a coloring is a list of {n} integers")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in obj):
        raise StateError("coloring entries must be integers")
    return tuple(obj)


def _extendable(nbr_bits: list[int], n: int, k: int, colors: list[int]) -> bool:
    """Exact: can the uncoloured vertices be coloured from 1..k? DSatur order + forward checking + colour
    symmetry (colours not used anywhere yet are interchangeable, so only the smallest one is tried)."""
    full = (1 << (k + 1)) - 2
    dom = [0] * n
    used = 0
    for v in range(n):
        if colors[v]:
            used |= 1 << colors[v]
    for v in range(n):
        if not colors[v]:
            m = full
            bits = nbr_bits[v]
            while bits:
                low = bits & -bits
                u = low.bit_length() - 1
                if colors[u]:
                    m &= ~(1 << colors[u])
                bits ^= low
            if not m:
                return False
            dom[v] = m
    uncolored = [v for v in range(n) if not colors[v]]

    def rec(unc: list[int], used: int) -> bool:
        if not unc:
            return True
        best, best_n, best_deg = -1, 99, -1
        for idx, v in enumerate(unc):
            c = dom[v].bit_count()
            if c < best_n or (c == best_n and (nbr_bits[v]).bit_count() > best_deg):
                best, best_n, best_deg = idx, c, nbr_bits[v].bit_count()
        v = unc[best]
        rest = unc[:best] + unc[best + 1:]
        tried_fresh = False
        m = dom[v]
        while m:
            low = m & -m
            m ^= low
            if not used & low:
                if tried_fresh:
                    continue
                tried_fresh = True
            # forward check on uncoloured neighbours
            changed = []
            ok = True
            for u in rest:
                if (nbr_bits[v] >> u) & 1 and dom[u] & low:
                    dom[u] &= ~low
                    changed.append(u)
                    if not dom[u]:
                        ok = False
                        break
            if ok and rec(rest, used | low):
                for u in changed:
                    dom[u] |= low
                return True
            for u in changed:
                dom[u] |= low
        return False

    return rec(uncolored, used)


class GraphColoringEngine:
    puzzle = "graphcoloring"

    def __init__(self, graph: Any, chromatic_number: int):
        self.adj = parse_graph(graph)
        self.n = len(self.adj)
        if isinstance(chromatic_number, bool) or not isinstance(chromatic_number, int) or chromatic_number < 1:
            raise StateError("chromatic_number must be a positive integer")
        self.k = chromatic_number
        self.nbr_bits = [sum(1 << u for u in nbrs) for nbrs in self.adj]
        self._cache: dict[Coloring, bool] = {}

    def root(self) -> Coloring:
        return (1,) + (0,) * (self.n - 1)

    def to_json(self, state: Coloring) -> list[int]:
        return list(state)

    def from_json(self, obj: Any) -> Coloring:
        return parse_coloring(obj, self.n)

    def key(self, state: Coloring) -> Coloring:
        return state

    def moves(self, state: Coloring) -> list[Move]:
        try:
            v = state.index(0)
        except ValueError:
            return []
        used = {state[u] for u in self.adj[v]}
        return [(v, c) for c in range(1, self.k + 1) if c not in used]

    def apply(self, state: Coloring, move: Move) -> Coloring:
        v, c = move
        return state[:v] + (c,) + state[v + 1:]

    def is_valid(self, state: Coloring) -> bool:
        if len(state) != self.n or any(not 0 <= c <= self.k for c in state):
            return False
        return not any(state[v] and state[v] == state[u] for v in range(self.n) for u in self.adj[v])

    def is_goal(self, state: Coloring) -> bool:
        return 0 not in state and self.is_valid(state)

    def is_solvable(self, state: Coloring) -> bool:
        hit = self._cache.get(state)
        if hit is None:
            hit = self.is_valid(state) and _extendable(self.nbr_bits, self.n, self.k, list(state))
            self._cache[state] = hit
        return hit

    def check_forward(self, state: Coloring, nxt: Coloring) -> str | None:
        diff = [v for v in range(self.n) if state[v] != nxt[v]]
        if len(diff) != 1:
            return MULTIPLE_MOVES
        v = diff[0]
        if state[v] != 0 or not 1 <= nxt[v] <= self.k:
            return INVALID_MOVE
        return None if all(nxt[u] != nxt[v] for u in self.adj[v]) else INVALID_MOVE

    def is_proper_complete(self, coloring: Sequence[int]) -> bool:
        """End-to-end check: every vertex coloured, no conflict, at most k distinct colours."""
        if len(coloring) != self.n or any(c <= 0 for c in coloring):
            return False
        if len(set(coloring)) > self.k:
            return False
        return all(coloring[v] != coloring[u] for v in range(self.n) for u in self.adj[v])

    def find_coloring(self) -> Coloring | None:
        """One proper k-colouring from the all-zero state (by walking the solver's decisions)."""
        state = [0] * self.n
        for v in range(self.n):
            for c in range(1, self.k + 1):
                if all(state[u] != c for u in self.adj[v]):
                    state[v] = c
                    if _extendable(self.nbr_bits, self.n, self.k, state):
                        break
                    state[v] = 0
            if not state[v]:
                return None
        return tuple(state)


# -- new instances ------------------------------------------------------------------------------------
def chromatic_number(graph: Sequence[Sequence[int]]) -> int:
    """Exact chromatic number (smallest k whose k-colourability test succeeds, from a clique lower bound)."""
    adj = parse_graph(graph)
    n = len(adj)
    bits = [sum(1 << u for u in nbrs) for nbrs in adj]
    if not any(bits):
        return 1
    # greedy clique lower bound
    lower = 1
    for v in range(n):
        clique = [v]
        for u in sorted(range(n), key=lambda x: -bits[x].bit_count()):
            if u != v and all((bits[w] >> u) & 1 for w in clique):
                clique.append(u)
        lower = max(lower, len(clique))
    k = lower
    while not _extendable(bits, n, k, [0] * n):
        k += 1
    return k


def random_graph(n: int, p: float, rng: random.Random) -> list[list[int]]:
    """Erdos-Renyi G(n, p) as a sorted, symmetric adjacency list."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        for u in range(v + 1, n):
            if rng.random() < p:
                adj[v].append(u)
                adj[u].append(v)
    return [sorted(a) for a in adj]


def make_graph(rng: random.Random, n_range: tuple[int, int] = (15, 25), p_range: tuple[float, float] = (0.3, 0.8),
               k_range: tuple[int, int] | None = None, max_tries: int = 200) -> tuple[list[list[int]], int]:
    """A random connected-enough graph (no isolated vertex) and its exact chromatic number.

    Difficulty knobs: vertex count, edge probability (density) and an optional chromatic-number window
    (rejection sampling). Defaults span the release (15-25 vertices, chromatic numbers 5-13).
    """
    for _ in range(max_tries):
        n = rng.randint(*n_range)
        p = rng.uniform(*p_range)
        g = random_graph(n, p, rng)
        if any(not a for a in g):
            continue
        k = chromatic_number(g)
        if k_range is None or k_range[0] <= k <= k_range[1]:
            return g, k
    raise RuntimeError("no graph matched the requested chromatic-number window")
