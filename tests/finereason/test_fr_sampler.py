"""Generated state sets: every state is rule-valid, its parent/grandparent/unsolvable-child relations hold
and its label is right - checked with brute-force solvers written here, independently of the engines."""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from reasoneval.benchmarks.finereason.engines import engine_for_record
from reasoneval.benchmarks.finereason.generate import (
    generate_states,
    graph_instances,
    make_engine_factory,
)
from reasoneval.benchmarks.finereason.sampler import SampleConfig, sample_records
from reasoneval.benchmarks.finereason.tree import build_tree


# -- independent brute force --------------------------------------------------------------------------
def sudoku_ok(cells: list[int]) -> bool:
    for k in range(9):
        for unit in ([k * 9 + c for c in range(9)], [r * 9 + k for r in range(9)],
                     [(k // 3 * 3 + i) * 9 + k % 3 * 3 + j for i in range(3) for j in range(3)]):
            vals = [cells[i] for i in unit if cells[i]]
            if len(vals) != len(set(vals)):
                return False
    return True


def _peers(i: int) -> list[int]:
    r, c = divmod(i, 9)
    box = [(r // 3 * 3 + a) * 9 + c // 3 * 3 + b for a in range(3) for b in range(3)]
    return [j for j in set(range(r * 9, r * 9 + 9)) | set(range(c, 81, 9)) | set(box) if j != i]


PEERS = [_peers(i) for i in range(81)]


def sudoku_brute(cells: list[int]) -> bool:
    """Naive backtracking over empty cells in row-major order (after a full rule check)."""
    return sudoku_ok(cells) and _fill(cells)


def _fill(cells: list[int]) -> bool:
    try:
        i = cells.index(0)
    except ValueError:
        return True
    for d in range(1, 10):
        if all(cells[j] != d for j in PEERS[i]):
            cells[i] = d
            if _fill(cells):
                cells[i] = 0
                return True
    cells[i] = 0
    return False


def flat(grid: list[list[int]]) -> list[int]:
    return [v for row in grid for v in row]


def one_fill(a: list[int], b: list[int], first_empty: bool = True) -> bool:
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 1 and a[diff[0]] == 0 and b[diff[0]] != 0 and (not first_empty or diff[0] == a.index(0))


def gc_brute(adj: list[list[int]], k: int, col: list[int]) -> bool:
    """Plain backtracking over uncoloured vertices in index order, every colour 1..k."""
    if any(col[v] and col[v] == col[u] for v in range(len(adj)) for u in adj[v]):
        return False
    col = list(col)

    def rec() -> bool:
        try:
            v = col.index(0)
        except ValueError:
            return True
        for c in range(1, k + 1):
            if all(col[u] != c for u in adj[v]):
                col[v] = c
                if rec():
                    return True
        col[v] = 0
        return False

    return rec()


def g24_value(expr: str) -> tuple[Fraction, list[int]]:
    """Evaluate a fully parenthesised release expression '((a op b) op c)' (independent mini parser)."""
    toks = re.findall(r"\d+|[-+*/()]", expr)
    pos = 0

    def term() -> tuple[Fraction, list[int]]:
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t != "(":
            return Fraction(int(t)), [int(t)]
        a, la = term()
        op = toks[pos]
        pos += 1
        b, lb = term()
        assert toks[pos] == ")"
        pos += 1
        v = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[op]
        if v is None:
            raise ZeroDivisionError
        return v, la + lb

    out = term()
    assert pos == len(toks)
    return out


def g24_brute(values: list[Fraction]) -> bool:
    if len(values) == 1:
        return values[0] == 24
    for i, j in itertools.permutations(range(len(values)), 2):
        rest = [v for t, v in enumerate(values) if t not in (i, j)]
        a, b = values[i], values[j]
        for o in [a + b, a - b, a * b] + ([a / b] if b else []):
            if g24_brute(rest + [o]):
                return True
    return False


def g24_one_op(before: list[str], after: list[str]) -> bool:
    rest = Counter(before) - Counter(after)
    new = Counter(after) - Counter(before)
    if len(after) != len(before) - 1 or sum(new.values()) != 1 or sum(rest.values()) != 2:
        return False
    (expr,) = new
    a, b = list(rest.elements())
    return expr in {f"({x} {op} {y})" for x, y in ((a, b), (b, a)) for op in "+-*/"}


# -- checks -------------------------------------------------------------------------------------------
def test_generated_sudoku_states() -> None:
    recs = generate_states("sudoku", 60, seed=11)
    assert len(recs) == 60 and Counter(r["outputs"]["current_status"] for r in recs) == {
        "Solvable": 30, "Unsolvable": 30}
    for rec in recs:
        inp = rec["inputs"]
        init, cur = flat(inp["initial"]), flat(inp["current"])
        par, child = flat(inp["parent"]), flat(inp["unsolvable_child"])
        assert 45 <= init.count(0) <= 49
        assert all(a == 0 or a == b for a, b in zip(init, cur, strict=True))
        assert sudoku_ok(cur) and sudoku_ok(par) and sudoku_ok(child)
        assert one_fill(par, cur) and one_fill(cur, child)
        if inp["grandparent"] is not None:
            assert one_fill(flat(inp["grandparent"]), par)
        solvable = sudoku_brute(list(cur))
        assert rec["outputs"]["current_status"] == ("Solvable" if solvable else "Unsolvable")
        assert not sudoku_brute(list(child))
        assert sudoku_brute(list(par))  # release-like: unsolvable states are first dead ends
        final = flat(rec["outputs"]["final"])
        assert 0 not in final and sudoku_ok(final) and all(a == 0 or a == b for a, b in zip(init, final,
                                                                                            strict=True))


@pytest.mark.parametrize("strategy", ["exact", "walk"])
def test_generated_graph_coloring_states(strategy: str) -> None:
    rng = random.Random(7)
    graphs = graph_instances(6, rng, n_range=(7, 9), p_range=(0.4, 0.6))
    cfg = SampleConfig(n_solvable=3, n_unsolvable=3, strategy=strategy)
    recs = sample_records("graphcoloring", graphs, 30, rng, make_engine_factory("graphcoloring"), cfg)
    assert len(recs) >= 12
    assert Counter(r["outputs"]["current_status"] for r in recs)["Solvable"] * 2 == len(recs)
    for rec in recs:
        inp = rec["inputs"]
        adj, k = inp["graph"], inp["chromatic_number"]
        assert not gc_brute(adj, k - 1, [0] * len(adj)) and gc_brute(adj, k, [0] * len(adj))
        cur, par, child = inp["current"], inp["parent"], inp["unsolvable_child"]
        assert cur[0] == 1 and all(c <= k for c in cur)
        assert one_fill(par, cur) and one_fill(cur, child)
        if inp["grandparent"] is not None:
            assert one_fill(inp["grandparent"], par)
        else:
            assert par == [1] + [0] * (len(adj) - 1)
        assert gc_brute(adj, k, par) or rec["outputs"]["current_status"] == "Unsolvable"
        assert rec["outputs"]["current_status"] == ("Solvable" if gc_brute(adj, k, cur) else "Unsolvable")
        assert gc_brute(adj, k, child) is False
        # colours are proper (rule-valid states only)
        assert all(not (cur[v] and cur[v] == cur[u]) for v in range(len(adj)) for u in adj[v])


def test_generated_game24_states() -> None:
    recs = generate_states("game24", 40, seed=3)
    assert len(recs) == 40
    assert Counter(r["outputs"]["current_status"] for r in recs) == {"Solvable": 20, "Unsolvable": 20}
    for rec in recs:
        inp = rec["inputs"]
        nums = sorted(int(x) for x in inp["initial_state"])
        cur, par, child = inp["current"], inp["parent"], inp["unsolvable_child"]
        vals = [g24_value(e) for e in cur]
        assert sorted(x for _, leaves in vals for x in leaves) == nums
        assert g24_one_op(par, cur) and g24_one_op(cur, child)
        if inp["grandparent"] is None:
            assert par == inp["initial_state"]
        else:
            assert g24_one_op(inp["grandparent"], par)
        solvable = g24_brute([v for v, _ in vals])
        assert rec["outputs"]["current_status"] == ("Solvable" if solvable else "Unsolvable")
        assert not g24_brute([g24_value(e)[0] for e in child])


def test_generated_grid_states() -> None:
    """Grid labels are checked against the released gold solution (the clues' unique solution, see
    test_fr_release), relations by monotone table growth along the recorded clue path."""
    recs = generate_states("gridpuzzle", 60, seed=5)
    assert len(recs) == 60
    for rec in recs:
        inp, out = rec["inputs"], rec["outputs"]
        gold = out["solution"]
        path = inp["initial_to_current"]
        assert path[0] == inp["initial"] and path[-1] == inp["current"]
        assert len(path) == len(inp["applied_clues"]) + 1 >= 2
        assert len(set(inp["applied_clues"])) == len(inp["applied_clues"])
        assert inp["clue_applied_to_unsolvable_child"] not in inp["applied_clues"]
        seq = path + [inp["unsolvable_child"]]
        for a, b in zip(seq, seq[1:], strict=False):
            for ra, rb in zip(a, b, strict=True):
                assert all(x == "" or x == y for x, y in zip(ra, rb, strict=True))
        for t in seq:
            for j in range(1, len(t[0])):
                col = [row[j] for row in t[1:] if row[j] != ""]
                assert len(col) == len(set(col)) and set(col) <= {row[j] for row in gold[1:]}

        assert out["current_status"] == ("Solvable" if _consistent(inp["current"], gold) else "Unsolvable")
        assert not _consistent(inp["unsolvable_child"], gold)


def _consistent(table: list[list[Any]], gold: list[list[Any]]) -> bool:
    return all(x == "" or x == y for ra, rb in zip(table, gold, strict=True) for x, y in zip(ra, rb, strict=True))


def test_depths_are_spread(questions: dict[str, list[dict[str, Any]]]) -> None:
    """Depth-uniform sampling: on one released Sudoku the sampled depths cover the tree, not one layer."""
    q = questions["sudoku"][0]
    eng = engine_for_record("sudoku", q)
    tree = build_tree(eng)
    recs = sample_records("sudoku", [q] * 20, 200, random.Random(0), make_engine_factory("sudoku"),
                          SampleConfig(n_solvable=50, n_unsolvable=50))
    depths = {sum(v == 0 for row in r["inputs"]["current"] for v in row) for r in recs}
    assert len(depths) >= min(8, tree.max_depth // 2)
