"""Engine unit tests: moves, validators, solvers (against brute force), generators."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from reasoneval.benchmarks.finereason.engines.arith import ExprError, canonical, evaluate, parse
from reasoneval.benchmarks.finereason.engines.base import INVALID_MOVE, MULTIPLE_MOVES, StateError
from reasoneval.benchmarks.finereason.engines.game24 import (
    Game24Engine,
    Rules,
    check_solution,
    make_numbers_set,
    solvable_numbers,
)
from reasoneval.benchmarks.finereason.engines.graphcoloring import (
    GraphColoringEngine,
    chromatic_number,
    make_graph,
    parse_graph,
    random_graph,
)
from reasoneval.benchmarks.finereason.engines.sudoku import (
    SudokuEngine,
    count_solutions,
    grid_to_json,
    make_puzzle,
)
from reasoneval.benchmarks.finereason.tree import build_tree, count_nodes

SOLVED = [[4, 1, 6, 9, 7, 2, 8, 3, 5], [7, 2, 3, 1, 8, 5, 6, 9, 4], [5, 9, 8, 3, 4, 6, 2, 1, 7],
          [6, 3, 5, 4, 1, 9, 7, 2, 8], [1, 8, 9, 2, 6, 7, 4, 5, 3], [2, 4, 7, 5, 3, 8, 1, 6, 9],
          [8, 7, 2, 6, 9, 3, 5, 4, 1], [3, 6, 4, 8, 5, 1, 9, 7, 2], [9, 5, 1, 7, 2, 4, 3, 8, 6]]


def _blank(grid: list[list[int]], cells: list[tuple[int, int]]) -> list[list[int]]:
    g = [row[:] for row in grid]
    for r, c in cells:
        g[r][c] = 0
    return g


# -- Sudoku -------------------------------------------------------------------------------------------
def test_sudoku_moves_follow_first_empty_cell_ascending() -> None:
    g = _blank(SOLVED, [(7, 2), (7, 3), (8, 0)])
    eng = SudokuEngine(g)
    st = eng.root()
    assert eng.moves(st) == [(7 * 9 + 2, 4)]  # only 4 fits (7,2)
    rng = random.Random(0)
    for _ in range(20):
        g2 = _blank(SOLVED, rng.sample([(r, c) for r in range(9) for c in range(9)], 40))
        eng2 = SudokuEngine(g2)
        r, c = next((r, c) for r in range(9) for c in range(9) if g2[r][c] == 0)
        seen = set(g2[r]) | {g2[i][c] for i in range(9)} | {
            g2[i][j] for i in range(r // 3 * 3, r // 3 * 3 + 3) for j in range(c // 3 * 3, c // 3 * 3 + 3)}
        assert eng2.moves(eng2.root()) == [(r * 9 + c, d) for d in range(1, 10) if d not in seen]


def test_sudoku_validator_and_check_forward() -> None:
    g = _blank(SOLVED, [(8, 8), (8, 7), (0, 0)])
    eng = SudokuEngine(g)
    root = eng.root()
    good = eng.from_json(_blank(SOLVED, [(8, 8), (8, 7)]))
    assert eng.is_valid(good) and eng.check_forward(root, good) is None
    two = eng.from_json(_blank(SOLVED, [(8, 8)]))
    assert eng.check_forward(root, two) == MULTIPLE_MOVES
    assert eng.check_forward(root, root) == MULTIPLE_MOVES  # no change at all
    clash = [row[:] for row in g]
    clash[0][0] = 1  # 1 is already in row 0
    assert eng.check_forward(root, eng.from_json(clash)) == INVALID_MOVE
    assert not eng.is_valid(eng.from_json(clash))
    erase = eng.from_json(_blank(SOLVED, [(8, 8), (8, 7), (0, 0), (4, 4)]))
    assert eng.check_forward(root, erase) == INVALID_MOVE  # removing a digit is not a forward move
    with pytest.raises(StateError):
        eng.from_json([[0] * 9] * 8)


def _rules_ok(cells: list[int]) -> bool:
    units = [[r * 9 + c for c in range(9)] for r in range(9)] + [[r * 9 + c for r in range(9)] for c in range(9)]
    units += [[(br + i) * 9 + bc + j for i in range(3) for j in range(3)] for br in (0, 3, 6) for bc in (0, 3, 6)]
    for u in units:
        vals = [cells[i] for i in u if cells[i]]
        if len(vals) != len(set(vals)):
            return False
    return True


def test_sudoku_solver_matches_brute_force_on_random_partial_grids() -> None:
    rng = random.Random(5)
    eng = SudokuEngine([[0] * 9 for _ in range(9)])
    for _ in range(40):
        cells = rng.sample([(r, c) for r in range(9) for c in range(9)], 4)
        g = _blank(SOLVED, cells)
        r, c = cells[0]
        g[r][c] = rng.randint(1, 9)  # possibly a wrong digit
        st = list(eng.from_json(g))
        empties = [i for i, v in enumerate(st) if v == 0]
        brute = False
        for digits in itertools.product(range(1, 10), repeat=len(empties)):
            for i, d in zip(empties, digits, strict=True):
                st[i] = d
            if _rules_ok(st):
                brute = True
                break
        for i in empties:
            st[i] = 0
        assert eng.is_solvable(tuple(st)) == brute


def test_sudoku_generator_unique_with_requested_empties() -> None:
    rng = random.Random(1)
    for n in (30, 45, 49, 55):
        puzzle, solution = make_puzzle(n, rng)
        assert puzzle.count(0) == n
        assert count_solutions(puzzle, 2) == 1
        assert SudokuEngine(grid_to_json(puzzle)).is_goal(solution)
    with pytest.raises(ValueError):
        make_puzzle(70, rng)


def test_sudoku_tree_labels() -> None:
    g = _blank(SOLVED, [(7, 2), (7, 3), (8, 0), (8, 1), (8, 2), (8, 3)])
    eng = SudokuEngine(g)
    tree = build_tree(eng)
    assert tree.solvable[0] and sum(tree.goal) == 1
    assert count_nodes(eng, 10_000) == len(tree)
    for i, s in enumerate(tree.states):
        assert tree.solvable[i] == eng.is_solvable(s)


# -- Graph Coloring -----------------------------------------------------------------------------------
def _brute_colorable(adj: list[list[int]], k: int, coloring: tuple[int, ...]) -> bool:
    free = [v for v, c in enumerate(coloring) if c == 0]
    for combo in itertools.product(range(1, k + 1), repeat=len(free)):
        col = list(coloring)
        for v, c in zip(free, combo, strict=True):
            col[v] = c
        if all(col[v] != col[u] for v in range(len(adj)) for u in adj[v]):
            return True
    return False


def test_graph_coloring_solver_matches_brute_force() -> None:
    rng = random.Random(2)
    for _ in range(30):
        g = random_graph(7, 0.5, rng)
        k = chromatic_number(g)
        assert not _brute_colorable(g, k - 1, (0,) * 7) if k > 1 else True
        assert _brute_colorable(g, k, (0,) * 7)
        eng = GraphColoringEngine(g, k)
        for _ in range(5):
            col = tuple(rng.choice([0, 0] + list(range(1, k + 1))) for _ in range(7))
            if eng.is_valid(col):
                assert eng.is_solvable(col) == _brute_colorable(g, k, col)


def test_graph_coloring_moves_and_checks() -> None:
    g = [[1, 2], [0, 2], [0, 1, 3], [2]]
    eng = GraphColoringEngine(g, 3)
    root = eng.root()
    assert root == (1, 0, 0, 0)
    assert eng.moves(root) == [(1, 2), (1, 3)]  # lowest uncoloured vertex, colours not used by neighbours
    assert eng.check_forward(root, (1, 2, 0, 0)) is None
    assert eng.check_forward(root, (1, 2, 3, 0)) == MULTIPLE_MOVES
    assert eng.check_forward(root, (1, 1, 0, 0)) == INVALID_MOVE  # neighbour conflict
    assert eng.check_forward(root, (1, 0, 4, 0)) == INVALID_MOVE  # colour above k
    assert eng.check_forward(root, (0, 0, 0, 0)) == INVALID_MOVE  # un-colouring is backward
    assert eng.is_proper_complete((1, 2, 3, 1)) and not eng.is_proper_complete((1, 2, 3, 3))
    assert eng.find_coloring() is not None
    with pytest.raises(StateError):
        parse_graph([[1], []])  # not symmetric
    with pytest.raises(StateError):
        eng.from_json([1, 2, 3])


def test_graph_generator_knobs() -> None:
    rng = random.Random(3)
    g, k = make_graph(rng, (10, 12), (0.4, 0.6), (3, 6))
    assert 10 <= len(g) <= 12 and 3 <= k <= 6
    assert k == chromatic_number(g)


# -- Game of 24 ---------------------------------------------------------------------------------------
def _brute_24(values: list[Fraction]) -> bool:
    if len(values) == 1:
        return values[0] == 24
    for i, j in itertools.permutations(range(len(values)), 2):
        a, b = values[i], values[j]
        rest = [v for t, v in enumerate(values) if t not in (i, j)]
        outs = [a + b, a - b, a * b] + ([a / b] if b else [])
        if any(_brute_24(rest + [o]) for o in outs):
            return True
    return False


def test_game24_solver_matches_brute_force() -> None:
    rng = random.Random(4)
    for _ in range(60):
        nums = [rng.randint(1, 13) for _ in range(4)]
        assert solvable_numbers(nums) == _brute_24([Fraction(x) for x in nums])
    assert solvable_numbers([1, 5, 5, 5])  # needs a fraction: 5 * (5 - 1/5)
    assert not solvable_numbers([1, 5, 5, 5], Rules(allow_fractions=False))


def test_game24_moves_use_release_format() -> None:
    eng = Game24Engine(["2", "3", "10", "12"])
    root = eng.root()
    kids = [eng.to_json(eng.apply(root, m)) for m in eng.moves(root)]
    assert ["(2 * 10)", "3", "12"] in kids  # new expression first, the rest in order
    cur = eng.from_json(["(2 * 10)", "3", "12"])
    assert eng.to_json(eng.apply(cur, next(m for m in eng.moves(cur) if eng.to_json(eng.apply(cur, m))
                                             == ["(3 / 12)", "(2 * 10)"]))) == ["(3 / 12)", "(2 * 10)"]
    # duplicates collapse: (6 + 6) from two equal numbers appears once
    e2 = Game24Engine([6, 6, 7, 12])
    keys = [e2.key(e2.apply(e2.root(), m)) for m in e2.moves(e2.root())]
    assert len(keys) == len(set(keys))


def test_game24_check_forward() -> None:
    eng = Game24Engine(["2", "3", "10", "12"])
    cur = eng.from_json(["(2 * 10)", "3", "12"])
    assert eng.check_forward(cur, eng.from_json(["(12 / 3)", "(2 * 10)"])) is None
    assert eng.check_forward(cur, eng.from_json(["(2 * 10)", "(3 + 12)"])) is None  # any order of the list
    assert eng.check_forward(cur, eng.from_json(["(12 + 3)", "(10 * 2)"])) is None  # commuted operands
    assert eng.check_forward(cur, eng.from_json(["((2 * 10) + (12 / 3))"])) == MULTIPLE_MOVES
    assert eng.check_forward(cur, cur) == MULTIPLE_MOVES
    assert eng.check_forward(cur, eng.root()) == INVALID_MOVE  # un-applying is backward
    assert eng.check_forward(cur, eng.from_json(["(12 / 4)", "(2 * 10)"])) == INVALID_MOVE  # different numbers
    assert eng.check_forward(cur, eng.from_json(["(3 / (12 - 12))", "(2 * 10)"])) == INVALID_MOVE


def test_arith_parser_is_safe_and_exact() -> None:
    assert evaluate(parse("(5 + 9) * 12 / 7")) == Fraction(24)
    assert evaluate(parse("8 / (3 - 8 / 3)")) == Fraction(24)
    assert canonical(parse("(9 + 5)")) == canonical(parse("(5+9)"))
    for bad in ("__import__('os')", "2 ** 5", "1 +", "(1 + 2", "1 2", "a + 1"):
        with pytest.raises(ExprError):
            parse(bad)
    assert check_solution([4, 7, 8, 8], "(7 - 8 / 8) * 4")[0]
    assert not check_solution([4, 7, 8, 8], "(7 - 8 / 8) * 4 + 0")[0]
    assert not check_solution([1, 1, 1, 1], "1 / (1 - 1) + 1 + 1")[0]


def test_game24_number_generator() -> None:
    rng = random.Random(9)
    assert solvable_numbers(make_numbers_set(rng, True))
    assert not solvable_numbers(make_numbers_set(rng, False))


def test_backtracking_is_the_reverse_move() -> None:
    from reasoneval.benchmarks.finereason.engines.base import is_backtrack

    eng = Game24Engine(["2", "3", "10", "12"])
    parent = eng.from_json(["(2 * 10)", "3", "12"])
    cur = eng.from_json(["(12 / 3)", "(2 * 10)"])
    assert is_backtrack(eng, cur, parent) and not is_backtrack(eng, cur, eng.root())
    s = SudokuEngine(_blank(SOLVED, [(0, 0), (0, 1)]))
    full = s.from_json(_blank(SOLVED, [(0, 1)]))
    assert is_backtrack(s, full, s.root()) and not is_backtrack(s, s.root(), full)
