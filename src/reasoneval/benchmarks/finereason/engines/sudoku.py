"""Sudoku: 9x9 grid, 0 = empty. Minimal move = write one digit (forward) or erase one (backtrack).

DFS order (matches all 500 released states): fill the first empty cell in row-major order with each digit
that breaks no rule, in ascending order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .base import INVALID_MOVE, MULTIPLE_MOVES, StateError

Grid = tuple[int, ...]  # 81 cells, row-major
Move = tuple[int, int]  # (cell index, digit)

_ROW = [i // 9 for i in range(81)]
_COL = [i % 9 for i in range(81)]
_BOX = [(i // 27) * 3 + (i % 9) // 3 for i in range(81)]
_DIGIT_BITS = [(d, 1 << d) for d in range(1, 10)]
_FULL = 0b1111111110


def _units_masks(grid: Grid) -> tuple[list[int], list[int], list[int]] | None:
    """Row/column/box digit masks, or None when a digit repeats in a unit."""
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9
    for i, v in enumerate(grid):
        if v:
            m = 1 << v
            r, c, b = _ROW[i], _COL[i], _BOX[i]
            if (rows[r] | cols[c] | boxes[b]) & m:
                return None
            rows[r] |= m
            cols[c] |= m
            boxes[b] |= m
    return rows, cols, boxes


def _search(grid: list[int], rows: list[int], cols: list[int], boxes: list[int], empties: list[int],
            limit: int, out: list[list[int]]) -> int:
    """Count solutions (up to ``limit``) by MRV backtracking; appends found solutions to ``out``."""
    if not empties:
        out.append(grid.copy())
        return 1
    best, best_free, best_n = -1, 0, 10
    for k, i in enumerate(empties):
        free = _FULL & ~(rows[_ROW[i]] | cols[_COL[i]] | boxes[_BOX[i]])
        n = free.bit_count()
        if n < best_n:
            best, best_free, best_n = k, free, n
            if n <= 1:
                break
    if best_n == 0:
        return 0
    i = empties[best]
    rest = empties[:best] + empties[best + 1:]
    r, c, b = _ROW[i], _COL[i], _BOX[i]
    found = 0
    for d, m in _DIGIT_BITS:
        if best_free & m:
            grid[i] = d
            rows[r] |= m
            cols[c] |= m
            boxes[b] |= m
            found += _search(grid, rows, cols, boxes, rest, limit - found, out)
            rows[r] ^= m
            cols[c] ^= m
            boxes[b] ^= m
            grid[i] = 0
            if found >= limit:
                break
    return found


def solve(grid: Grid, limit: int = 1) -> list[Grid]:
    """Up to ``limit`` solutions of ``grid`` (empty list when it has none or breaks a rule)."""
    masks = _units_masks(grid)
    if masks is None:
        return []
    out: list[list[int]] = []
    _search(list(grid), *masks, [i for i, v in enumerate(grid) if v == 0], limit, out)
    return [tuple(s) for s in out]


def count_solutions(grid: Grid, limit: int = 2) -> int:
    return len(solve(grid, limit))


def parse_grid(obj: Any) -> Grid:
    if not isinstance(obj, Sequence) or len(obj) != 9:
        raise StateError("a Sudoku grid is a list of 9 rows")
    cells: list[int] = []
    for row in obj:
        if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != 9:
            raise StateError("each Sudoku row is a list of 9 integers")
        for v in row:
            if isinstance(v, bool) or not isinstance(v, int):
                raise StateError(f"Sudoku cell {v!r} is not an integer")
            cells.append(v)
    return tuple(cells)


def grid_to_json(grid: Grid) -> list[list[int]]:
    return [list(grid[r * 9:(r + 1) * 9]) for r in range(9)]


class SudokuEngine:
    puzzle = "sudoku"

    def __init__(self, initial: Any):
        self.initial: Grid = parse_grid(initial)
        if any(not 0 <= v <= 9 for v in self.initial) or _units_masks(self.initial) is None:
            raise StateError("the initial Sudoku grid breaks a rule")
        self._cache: dict[Grid, bool] = {}

    # -- state plumbing -------------------------------------------------------------------------------
    def root(self) -> Grid:
        return self.initial

    def to_json(self, state: Grid) -> list[list[int]]:
        return grid_to_json(state)

    def from_json(self, obj: Any) -> Grid:
        return parse_grid(obj)

    def key(self, state: Grid) -> Grid:
        return state

    # -- moves ----------------------------------------------------------------------------------------
    def moves(self, state: Grid) -> list[Move]:
        try:
            i = state.index(0)
        except ValueError:
            return []
        used = 0
        r, c, b = _ROW[i], _COL[i], _BOX[i]
        for j, v in enumerate(state):
            if v and (_ROW[j] == r or _COL[j] == c or _BOX[j] == b):
                used |= 1 << v
        return [(i, d) for d, m in _DIGIT_BITS if not used & m]

    def apply(self, state: Grid, move: Move) -> Grid:
        i, d = move
        return state[:i] + (d,) + state[i + 1:]

    # -- rules ----------------------------------------------------------------------------------------
    def is_valid(self, state: Grid) -> bool:
        if len(state) != 81 or any(not 0 <= v <= 9 for v in state):
            return False
        if any(g and g != v for g, v in zip(self.initial, state, strict=True)):
            return False
        return _units_masks(state) is not None

    def is_goal(self, state: Grid) -> bool:
        return 0 not in state and self.is_valid(state)

    def is_solvable(self, state: Grid) -> bool:
        hit = self._cache.get(state)
        if hit is None:
            hit = self.is_valid(state) and bool(solve(state, 1))
            self._cache[state] = hit
        return hit

    def check_forward(self, state: Grid, nxt: Grid) -> str | None:
        diff = [i for i in range(81) if state[i] != nxt[i]]
        if len(diff) != 1:
            return MULTIPLE_MOVES
        i = diff[0]
        if state[i] != 0 or not 1 <= nxt[i] <= 9:
            return INVALID_MOVE
        return None if self.is_valid(nxt) else INVALID_MOVE

    def solution(self) -> Grid | None:
        found = solve(self.initial, 1)
        return found[0] if found else None


# -- new instances ------------------------------------------------------------------------------------
def random_full_grid(rng: random.Random) -> Grid:
    """A uniformly shuffled complete grid: a random solve of the empty grid, then digit relabelling."""
    grid = [0] * 81
    order = list(range(81))
    # seed the three diagonal boxes with random permutations (they never conflict), then solve
    for b in (0, 4, 8):
        digits = rng.sample(range(1, 10), 9)
        cells = [i for i in order if _BOX[i] == b]
        for i, d in zip(cells, digits, strict=True):
            grid[i] = d
    solved = solve(tuple(grid), 1)
    assert solved, "diagonal boxes always complete"
    return solved[0]


def make_puzzle(n_empty: int, rng: random.Random, max_restarts: int = 50) -> tuple[Grid, Grid]:
    """(puzzle, solution) with exactly ``n_empty`` empty cells and a unique solution.

    Cells are removed in random order and a removal is kept only if the solution stays unique; when no cell
    can be removed any more before reaching ``n_empty`` the attempt restarts from a new full grid. Unique
    puzzles need at least 17 clues, so ``n_empty`` must be at most 64 (in practice <= ~58 is fast).
    """
    if not 0 <= n_empty <= 64:
        raise ValueError("n_empty must be in 0..64 for a unique-solution Sudoku")
    for _ in range(max_restarts):
        solution = random_full_grid(rng)
        puzzle = list(solution)
        removed = 0
        for i in rng.sample(range(81), 81):
            if removed == n_empty:
                break
            keep = puzzle[i]
            puzzle[i] = 0
            if count_solutions(tuple(puzzle), 2) == 1:
                removed += 1
            else:
                puzzle[i] = keep
        if removed == n_empty:
            return tuple(puzzle), solution
    raise RuntimeError(f"no unique Sudoku with {n_empty} empty cells after {max_restarts} restarts")
