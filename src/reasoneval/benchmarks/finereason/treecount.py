"""Fast exact statistics of the full FineReason DFS trees of Sudoku and Graph Coloring, without node objects.

Both puzzles' trees are *ordered list-colouring* trees: the DFS assigns the variables 0..m-1 in a fixed order
(Sudoku: the empty cells in row-major order, because the move always fills the first empty cell; Graph Coloring:
vertices 1..n-1, because vertex 0 is pre-coloured 1 at the root and the move colours the lowest-index uncoloured
vertex), and variable j may take any colour of its base set (Sudoku: digits not among the givens of its row,
column and box; Graph Coloring: 1..k, minus colour 1 next to vertex 0) not taken by an earlier variable it
conflicts with (same unit / an edge). Children come in ascending colour order, as in the engines. A node at
depth d has the first d variables assigned; a leaf at depth m is a complete, rule-valid assignment (a goal), any
other leaf is a dead end. ``solvable(node) = goal or any(solvable(child))``, as in ``tree.build_tree``.

Two exact counters over that model:

* :func:`enumerate_tree` walks the tree in the release's DFS order with bitmask arithmetic in a Python function
  generated for the instance (one nested ``for`` loop per depth, the allowed-colour mask of each later variable
  updated as soon as its conflicting variable is assigned). Every node is visited one by one, in DFS pre-order,
  and labelled in post-order (an inner node is solvable iff the goal counter grew inside its subtree; a node at
  depth m is a goal). ``leaf_bulk=True`` counts the depth-m nodes per parent with a popcount instead of
  visiting them (they are all goals: every child is rule-valid and completes the assignment). Optional
  wall-clock limit. Small trees (the released Sudokus: 69-885 nodes) skip the code generation and are walked
  with an explicit stack (``walker="auto"``).
* :func:`count_tree` counts the same quantities by memoising isomorphic subtrees: the subtree below a node is
  determined by its depth and, for each colour, the set of not-yet-assigned variables that colour is forbidden
  for, and permuting colours maps a subtree onto an isomorphic one (same shape, depths and goal leaves), so the
  key is the sorted tuple of those sets and interchangeable colours are expanded once with a multiplicity. It is
  exact, but does not visit nodes: it gives the sizes of Graph Coloring trees far too big to walk (up to ~1e15
  nodes in the release). The tests check it against :func:`enumerate_tree` and ``tree.build_tree``.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .engines.graphcoloring import parse_graph
from .engines.sudoku import _units_masks, parse_grid

_MAX_LOOPS = 16  # nested for-loops per generated function (CPython allows 20 nested blocks in all)


@dataclass(frozen=True)
class OrderedColoring:
    """Variables 0..m-1 assigned in order; variable j takes a colour c (bit c of ``base[j]``) that no variable
    in ``lower[j]`` (earlier, conflicting) holds. ``colors``: number of colour bits."""

    base: tuple[int, ...]
    lower: tuple[tuple[int, ...], ...]
    colors: int

    @property
    def size(self) -> int:
        return len(self.base)


@dataclass
class TreeStats:
    """Statistics of a full DFS tree (root included, depth 0). ``complete`` is False when a time limit stopped
    the walk; then only ``nodes`` (nodes generated so far) is meaningful."""

    nodes: int
    solvable: int
    goals: int  # complete assignments = solvable leaves
    max_depth: int
    root_solvable: bool
    per_depth: list[int] = field(default_factory=list)  # node count per depth (enumerate_tree only)
    complete: bool = True
    seconds: float = 0.0  # the walk / the count
    method: str = ""
    setup_seconds: float = 0.0  # generating and compiling the walker (enumerate_tree)

    @property
    def unsolvable(self) -> int:
        return self.nodes - self.solvable

    @property
    def rate(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")


# -- problems -------------------------------------------------------------------------------------------
def sudoku_problem(grid: Any) -> OrderedColoring:
    """The Sudoku tree of ``grid`` (9x9 list or 81-tuple, 0 = empty) as an ordered list colouring (bit d-1 =
    digit d)."""
    cells = tuple(grid) if isinstance(grid, tuple) and len(grid) == 81 else parse_grid(grid)
    masks = _units_masks(cells)
    if masks is None:
        raise ValueError("the Sudoku grid breaks a rule")
    rows, cols, boxes = masks
    empties = [i for i, v in enumerate(cells) if v == 0]
    base, lower = [], []
    for j, i in enumerate(empties):
        r, c, b = i // 9, i % 9, (i // 27) * 3 + (i % 9) // 3
        base.append((0b1111111110 & ~(rows[r] | cols[c] | boxes[b])) >> 1)
        lower.append(tuple(t for t, e in enumerate(empties[:j])
                           if e // 9 == r or e % 9 == c or (e // 27) * 3 + (e % 9) // 3 == b))
    return OrderedColoring(tuple(base), tuple(lower), 9)


def graphcoloring_problem(graph: Any, k: int) -> OrderedColoring:
    """The Graph Coloring tree (root: vertex 0 coloured 1) as an ordered list colouring of vertices 1..n-1
    (variable j = vertex j+1, bit c = colour c+1)."""
    adj = parse_graph(graph)
    n = len(adj)
    full = (1 << k) - 1
    base = tuple(full & ~1 if 0 in adj[v] else full for v in range(1, n))
    lower = tuple(tuple(sorted(u - 1 for u in adj[v] if 0 < u < v)) for v in range(1, n))
    return OrderedColoring(base, lower, k)


def problem_for_engine(engine: Any) -> OrderedColoring:
    """The problem of a ``SudokuEngine`` / ``GraphColoringEngine`` (its root)."""
    if engine.puzzle == "sudoku":
        return sudoku_problem(engine.root())
    if engine.puzzle == "graphcoloring":
        return graphcoloring_problem(engine.adj, engine.k)
    raise ValueError(f"no ordered-colouring model for {engine.puzzle!r}")


# -- enumeration by generated nested loops ----------------------------------------------------------------
class _Stop(Exception):
    def __init__(self) -> None:
        super().__init__("time limit")
        self.counts: list[int] | None = None

    def add(self, offset: int, vals: Sequence[int]) -> None:
        if self.counts is None:
            self.counts = []
        need = offset + len(vals)
        if len(self.counts) < need:
            self.counts.extend([0] * (need - len(self.counts)))
        for i, v in enumerate(vals):
            self.counts[offset + i] += v


def _tables(colors: int) -> tuple[list[tuple[int, ...]], list[int]]:
    nb = [tuple(~(1 << c) for c in range(colors) if m >> c & 1) for m in range(1 << colors)]
    pop = [m.bit_count() for m in range(1 << colors)]
    return nb, pop


_TABLES: dict[int, tuple[list[tuple[int, ...]], list[int]]] = {}


def _gen_source(p: OrderedColoring, leaf_bulk: bool) -> str:
    """Source of ``_f0()``, which returns ``(c_0, ..., c_{m-1}, solv)``: c_i = nodes at depth i+1 and solv =
    solvable nodes at depths 1..m-1 (depth-m nodes are all goals). Variable j's loop variable ``n{j}`` holds the
    complement of its colour bit; ``a{j}_{i}`` is variable j's allowed mask once variables up to i are set."""
    m = p.size
    hi: list[list[int]] = [[] for _ in range(m)]
    for j, low in enumerate(p.lower):
        for i in low:
            hi[i].append(j)
    cur = [str(b) for b in p.base]  # current expression of each variable's allowed mask
    lines: list[str] = []
    funcs: list[list[str]] = []

    def start_func(s: int, params: list[str]) -> list[str]:
        out = [f"def _f{s}({', '.join(params)}):",
               "    " + " = ".join([f"c{i}" for i in range(s, m)] + ["solv"]) + " = 0",
               "    try:"]
        funcs.append(out)
        return out

    def end_func(out: list[str], s: int) -> None:
        vals = ", ".join([f"c{i}" for i in range(s, m)] + ["solv"])
        out.append(f"        return ({vals},)")
        out.append("    except _Stop as e:")
        out.append(f"        e.add({s}, ({vals},))")
        out.append("        raise")

    def level(i: int, out: list[str], ind: str, loops: int) -> None:
        """The loop over depth-(i+1) nodes (variable i), emitted where variable i's mask is current."""
        out.append(f"{ind}for n{i} in NB[{cur[i]}]:")
        body = ind + "    "
        if i == m - 1:  # only without leaf_bulk: visit the goal leaves one by one
            out.append(f"{body}c{i} += 1")
            return
        for j in hi[i]:
            if j == m - 1 and i == m - 2:
                continue
            out.append(f"{body}a{j}_{i} = {cur[j]} & n{i}")
            cur[j] = f"a{j}_{i}"
        if i == m - 2 and leaf_bulk:
            expr = cur[m - 1] + (f" & n{i}" if m - 1 in hi[i] else "")
            out.append(f"{body}x = POP[{expr}]")
            out.append(f"{body}if x:")
            out.append(f"{body}    c{m - 1} += x")
            out.append(f"{body}    solv += 1")
            return
        if i == m - 2:
            expr = cur[m - 1] + (f" & n{i}" if m - 1 in hi[i] else "")
            out.append(f"{body}x = {expr}")
            out.append(f"{body}if x:")
            out.append(f"{body}    solv += 1")
            cur[m - 1] = "x"
            level(m - 1, out, body + "    ", loops + 2)
            return
        out.append(f"{body}c{i + 1} += POP[{cur[i + 1]}]")
        out.append(f"{body}g{i} = c{m - 1}")
        if loops + 1 >= _MAX_LOOPS:  # continue in a new function, called once per depth-(i+1) node
            s = i + 1
            params = sorted({cur[j] for j in range(s, m) if not cur[j].isdigit()})
            out.append(f"{body}r = _f{s}({', '.join(params)})")
            for t in range(s, m):
                out.append(f"{body}c{t} += r[{t - s}]")
            out.append(f"{body}solv += r[{m - s}]")
            sub = start_func(s, params)
            level(s, sub, "        ", 1)
            end_func(sub, s)
        else:
            level(i + 1, out, body, loops + 1)
        out.append(f"{body}if c{m - 1} != g{i}:")
        out.append(f"{body}    solv += 1")

    top = start_func(0, [])
    if m > 1 or leaf_bulk:
        top.append(f"        c0 += POP[{cur[0]}]")
    if m > 1 or not leaf_bulk:
        level(0, top, "        ", 1)
    end_func(top, 0)
    for f in funcs:
        lines.extend(f)
        lines.append("")
    return "\n".join(lines)


def _only_ints(p: OrderedColoring) -> None:
    """The generated walker's source is made of these numbers and nothing else: refuse anything that is not
    a plain ``int`` (data files are parsed into ints before they get here; this makes it a guarantee)."""
    values = [p.colors, *p.base, *(x for row in p.lower for x in row)]
    if not all(type(v) is int for v in values):
        raise TypeError("OrderedColoring must hold plain ints only")


def _compile(p: OrderedColoring, leaf_bulk: bool) -> Any:
    _only_ints(p)
    if p.colors not in _TABLES:
        _TABLES[p.colors] = _tables(p.colors)
    nb, pop = _TABLES[p.colors]
    ns: dict[str, Any] = {"NB": nb, "POP": pop, "_Stop": _Stop}
    # the source is generated from the ints checked above (never from model or user text): one nested loop
    # per depth runs ~10x faster than a generic stack walk in CPython
    exec(compile(_gen_source(p, leaf_bulk), "<treecount>", "exec"), ns)
    return ns["_f0"]


def _walk_plain(p: OrderedColoring, budget: int) -> TreeStats | None:
    """The same walk with an explicit stack and no code generation (cheaper for small trees: compiling the
    generated walker costs a few ms); None once more than ``budget`` nodes were visited."""
    m, base, lower = p.size, p.base, p.lower
    colour = [0] * m  # bit of the colour assigned to each variable on the current path
    rem = [0] * m  # colours still to try at each depth
    gb = [0] * m  # goal count when the node at each depth was entered
    per_depth = [0] * (m + 1)
    per_depth[0] = 1
    nodes, goals, solv, d = 1, 0, 0, 0
    rem[0] = base[0]
    while True:
        r = rem[d]
        if r:
            b = r & -r
            rem[d] = r ^ b
            colour[d] = b
            nodes += 1
            if nodes > budget:
                return None
            per_depth[d + 1] += 1
            if d + 1 == m:  # a goal leaf
                goals += 1
                continue
            d += 1
            f = 0
            for i in lower[d]:
                f |= colour[i]
            rem[d] = base[d] & ~f
            gb[d] = goals
        else:  # post-order: every child of the node at depth d is done
            if d == 0:
                break
            if goals != gb[d]:
                solv += 1
            d -= 1
    max_depth = max(i for i, c in enumerate(per_depth) if c)
    solvable = solv + goals + (1 if goals else 0)
    return TreeStats(nodes, solvable, goals, max_depth, goals > 0, per_depth, True, 0.0, "enumerate")


PLAIN_BUDGET = 20_000  # walker="auto": trees up to this size are walked without code generation


def enumerate_tree(p: OrderedColoring, time_limit: float | None = None, leaf_bulk: bool = False,
                   walker: str = "auto") -> TreeStats:
    """Walk the whole DFS tree of ``p`` in move order (see the module docstring).

    ``walker``: ``"compiled"`` (generated nested loops, ~10-20M nodes/s), ``"plain"`` (explicit stack, no
    set-up cost, ~2M nodes/s; ignores ``leaf_bulk`` and ``time_limit``) or ``"auto"`` (plain for up to
    ``PLAIN_BUDGET`` nodes, else compiled from the start; the abandoned plain walk counts as set-up time).
    ``time_limit`` (seconds, main thread only: it uses a SIGALRM timer) stops the compiled walk; the result
    then has ``complete=False`` and ``nodes`` = nodes generated so far (children are counted when their parent
    is expanded).
    """
    if walker not in ("auto", "compiled", "plain"):
        raise ValueError(f"unknown walker {walker!r}")
    if time_limit is not None and threading.current_thread() is not threading.main_thread():
        raise ValueError("enumerate_tree(time_limit=...) needs the main thread (it uses SIGALRM)")
    m = p.size
    t0 = time.perf_counter()
    if m == 0:  # nothing to fill: the root is the goal
        return TreeStats(1, 1, 1, 0, True, [1], True, time.perf_counter() - t0, "enumerate")
    if walker != "compiled":
        plain = _walk_plain(p, PLAIN_BUDGET if walker == "auto" else sys.maxsize)
        if plain is not None:
            plain.seconds = time.perf_counter() - t0
            plain.method = "enumerate/plain"
            return plain
    fn = _compile(p, leaf_bulk)
    t1 = time.perf_counter()
    res: tuple[int, ...] | None = None
    complete = True
    if time_limit is None:
        res = fn()
    else:
        time_limit = max(time_limit - (t1 - t0), 0.0)

        def _alarm(signum: int, frame: Any) -> None:
            raise _Stop()

        old = signal.signal(signal.SIGALRM, _alarm)
        try:
            signal.setitimer(signal.ITIMER_REAL, max(time_limit, 1e-6))
            try:
                res = fn()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Stop as e:
            if res is None:  # (else the alarm rang after the walk had finished)
                res = tuple(e.counts or [0] * (m + 1))
                complete = False
        finally:
            signal.signal(signal.SIGALRM, old)
    t2 = time.perf_counter()
    assert res is not None
    per_level = list(res[:m])
    goals = per_level[m - 1]
    per_depth = [1] + per_level
    nodes = sum(per_depth)
    max_depth = max(d for d, c in enumerate(per_depth) if c)
    solvable = res[m] + goals + (1 if goals else 0)
    return TreeStats(nodes, solvable, goals, max_depth, goals > 0, per_depth, complete, t2 - t1,
                     "enumerate/compiled", t1 - t0)


# -- exact counting by isomorphic-subtree memoisation ------------------------------------------------------
def count_tree(p: OrderedColoring) -> TreeStats:
    """Exact node / solvable / goal counts and max depth of the full tree of ``p`` by memoising subtrees
    (see the module docstring); no per-depth counts."""
    t0 = time.perf_counter()
    m, k = p.size, p.colors
    higher = [0] * m
    for j, low in enumerate(p.lower):
        for i in low:
            higher[i] |= 1 << j
    # forb[c] = variables for which colour c is not allowed (yet)
    forb = [sum(1 << j for j in range(m) if not p.base[j] >> c & 1) for c in range(k)]
    memo: list[dict[tuple[int, ...], tuple[int, int, int, int, int]]] = [{} for _ in range(m + 1)]
    keep = [~((1 << (j + 1)) - 1) for j in range(m)]  # variables after j

    def rec(j: int, F: tuple[int, ...]) -> tuple[int, int, int, int, int]:
        """(nodes, solvable nodes, goals, height, solvable) of a node whose next variable is j."""
        if j == m:
            return (1, 1, 1, 0, 1)
        d = memo[j]
        hit = d.get(F)
        if hit is not None:
            return hit
        bit, kp, hj = 1 << j, keep[j], higher[j]
        nodes, solv, goals, height, ok = 1, 0, 0, 0, 0
        prev = -1
        for idx, f in enumerate(F):
            if f == prev:
                continue
            prev = f
            if f & bit:
                continue
            mult = 1
            while idx + mult < k and F[idx + mult] == f:
                mult += 1
            child = [g & kp for g in F]
            child[idx] = (f | hj) & kp
            child.sort()
            cn, cs, cg, ch, cok = rec(j + 1, tuple(child))
            nodes += mult * cn
            solv += mult * cs
            goals += mult * cg
            if ch + 1 > height:
                height = ch + 1
            ok |= cok
        res = (nodes, solv + ok, goals, height, ok)
        d[F] = res
        return res

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * m + 1000))
    try:
        start = tuple(sorted(forb))
        nodes, solv, goals, height, ok = rec(0, start)
    finally:
        sys.setrecursionlimit(old)
    return TreeStats(nodes, solv, goals, height, bool(ok), [], True, time.perf_counter() - t0, "memo")


def tree_stats(engine: Any, time_limit: float | None = None) -> TreeStats:
    """:func:`enumerate_tree` for a Sudoku / Graph Coloring engine."""
    return enumerate_tree(problem_for_engine(engine), time_limit=time_limit)
