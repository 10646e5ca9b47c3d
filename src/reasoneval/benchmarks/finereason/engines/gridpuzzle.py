"""Logic Grid Puzzles: a table whose first column (the anchor category) is pre-filled; a move applies one
not-yet-applied clue, placing every attribute value the clue mentions (official ``gridpuzzle_tree``).

A clue application enumerates every placement of the clue's still-unplaced values into empty cells of their
categories (distinct rows within a category) and keeps those under which the clue's condition evaluates True
(official reading: missing values and empty cells read as ``''``). If the clue has nothing left to place and
holds, the child is the unchanged table. The DFS applies clues in a fixed per-puzzle order (the released
states show one fixed order per puzzle; the heuristic that produced it is not released, so the default order
here is our own, see ``default_clue_order``, and any order can be passed in).

Solvable = the table extends to a complete assignment (each category a permutation) satisfying every clue.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .base import INVALID_MOVE, MULTIPLE_MOVES, StateError
from .clue_lang import (
    UNKNOWN,
    Cell,
    Condition,
    Context,
    Maybe,
    Value,
    compile_condition,
    headers_used,
    mentions,
    walk,
)

Table = tuple[tuple[Value, ...], ...]  # row 0 = headers, column 0 = anchor category
EMPTY = ""
MAX_SOLUTIONS = 64


@dataclass(frozen=True)
class GridState:
    table: Table
    applied: tuple[str, ...] = ()


Move = tuple[str, Table]  # (clue id, resulting table)


def _coerce_number(tok: str) -> Value:
    tok = tok.strip()
    if re.fullmatch(r"-?\d+", tok):
        return int(tok)
    if re.fullmatch(r"-?\d+\.\d+", tok):
        return float(tok)
    return tok


def parse_categories(text: str) -> list[tuple[str, list[Value]]]:
    """``"times : 9, 10, 11, 12.\\nnames : Billy, Guy."`` -> [(name, values)]. A trailing parenthetical
    gloss (``7.0 (7:00am)``) is dropped and numeric tokens become int/float."""
    out: list[tuple[str, list[Value]]] = []
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        name, sep, rest = line.partition(":")
        if not sep:
            raise StateError(f"category line without ':': {line!r}")
        rest = rest.strip()
        if rest.endswith("."):
            rest = rest[:-1]
        values = [_coerce_number(re.sub(r"\s*\([^()]*\)\s*$", "", v)) for v in rest.split(",")]
        out.append((name.strip(), values))
    return out


def _table(obj: Any) -> Table:
    if not isinstance(obj, Sequence) or isinstance(obj, str) or len(obj) < 2:
        raise StateError("a grid table is a list of rows (headers first)")
    width = None
    rows = []
    for row in obj:
        if not isinstance(row, Sequence) or isinstance(row, str):
            raise StateError("each table row is a list")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise StateError("table rows have different lengths")
        for v in row:
            if not isinstance(v, int | float | str) or isinstance(v, bool):
                raise StateError(f"table cell {v!r} is not a string or number")
        rows.append(tuple(row))
    return tuple(rows)


def _place(table: Table, cells: list[tuple[int, int, Value]]) -> Table:
    grid = [list(r) for r in table]
    for r, j, v in cells:
        grid[r][j] = v
    return tuple(tuple(r) for r in grid)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, str) != isinstance(b, str):
        return False
    return a == b


def table_context(table: Table) -> Context:
    """Official two-valued reading of a (partial) table: missing values and empty cells read as ''."""
    row_of: dict[Any, int] = {}
    for i in range(1, len(table)):
        for v in table[i]:
            if v != EMPTY:
                row_of.setdefault(v, i)
    return Context(row_of, table)


@dataclass
class GridPuzzle:
    question: str
    categories: str
    clues: dict[str, dict[str, str]]  # id -> {"text", "conditions"} (release form, kept for records)
    initial: Table
    solution: Table | None = None
    headers: tuple[str, ...] = field(init=False)
    domains: tuple[tuple[Value, ...], ...] = field(init=False)
    conditions: dict[str, Condition] = field(init=False)

    def __post_init__(self) -> None:
        self.headers = tuple(str(h) for h in self.initial[0])
        width = len(self.headers)
        anchors = tuple(row[0] for row in self.initial[1:])
        if self.solution is not None:
            if len(self.solution) != len(self.initial) or any(len(r) != width for r in self.solution):
                raise StateError("solution table shape differs from the initial table")
            domains = [tuple(row[j] for row in self.solution[1:]) for j in range(width)]
        else:
            cats = parse_categories(self.categories)
            if len(cats) != width:
                raise StateError(f"{len(cats)} category lines for {width} table columns")
            domains = [anchors] + [tuple(vals) for _, vals in cats[1:]]
            if any(len(d) != len(anchors) for d in domains):
                raise StateError("every category needs exactly one value per row")
        domains[0] = anchors
        self.domains = tuple(domains)
        self._col_of = {h: j for j, h in enumerate(self.headers)}
        try:
            self.conditions = {k: compile_condition(v["conditions"], self._col_of) for k, v in self.clues.items()}
        except (KeyError, TypeError) as exc:
            raise StateError("each clue needs a 'conditions' string") from exc
        self._value_col: dict[Any, list[int]] = {}
        for j, dom in enumerate(self.domains):
            if len(set(dom)) != len(dom):
                raise StateError(f"category {self.headers[j]!r} repeats a value")
            for v in dom:
                self._value_col.setdefault(v, []).append(j)
        self._to_place = {k: self._clue_values(c) for k, c in self.conditions.items()}
        self._row_refs = {k: {n.row_value for n in walk(c.node) if isinstance(n, Cell)}
                          for k, c in self.conditions.items()}
        self._col_refs = {k: {self._col_of[h] for h in headers_used(c.node) if h in self._col_of}
                          for k, c in self.conditions.items()}
        # search helpers: a value's column (None: ambiguous, read as unknown) and which clues can notice a
        # placement in column j
        self._search_col: dict[Any, Any] = {v: (cols[0] if len(cols) == 1 else None)
                                            for v, cols in self._value_col.items()}
        self._watch_col = []
        for j in range(width):
            self._watch_col.append([c for k, c in self.conditions.items() if j in self._col_refs[k]
                                    or any(self._search_col.get(u, j) == j for u in self._row_refs[k])])

    @classmethod
    def from_inputs(cls, inputs: dict[str, Any], solution: Any = None) -> GridPuzzle:
        try:
            return cls(question=inputs.get("question", ""), categories=inputs.get("categories", ""),
                       clues=dict(inputs["clues"]), initial=_table(inputs["initial"]),
                       solution=_table(solution) if solution is not None else None)
        except KeyError as exc:
            raise StateError(f"grid puzzle record lacks {exc}") from exc

    def fingerprint(self) -> tuple[Any, ...]:
        return (self.initial, self.domains, tuple(sorted((k, c.text) for k, c in self.conditions.items())))

    @property
    def clue_ids(self) -> list[str]:
        return sorted(self.clues, key=lambda k: (len(k), k))

    def _clue_values(self, cond: Condition) -> list[tuple[Value, int]]:
        """(value, column) pairs a clue places, in order of first mention (anchor values are never placed)."""
        out: list[tuple[Value, int]] = []
        for value, header in mentions(cond.node):
            cols = self._value_col.get(value, [])
            if header is not None:
                j = self._col_of.get(header)
                cols = [j] if j in cols else []
            cols = [j for j in cols if j != 0]
            if len(cols) == 1 and (value, cols[0]) not in out:
                out.append((value, cols[0]))
        return out

    # -- clue application ---------------------------------------------------------------------------
    def context(self, table: Table) -> Context:
        return table_context(table)

    def _todo(self, table: Table, clue_id: str) -> list[tuple[Value, int, list[int]]]:
        """(value, column, empty rows of that column) for each value the clue still has to place."""
        out = []
        for value, j in self._to_place[clue_id]:
            if any(_same(row[j], value) for row in table[1:]):
                continue  # already placed
            out.append((value, j, [i for i in range(1, len(table)) if table[i][j] == EMPTY]))
        return out

    def apply_clue(self, table: Table, clue_id: str) -> list[Table]:
        """Every table one application of ``clue_id`` can produce (empty list: the clue cannot be applied).

        Each still-unplaced value the clue mentions goes to a distinct empty row of its category; a placement
        is kept when the clue's condition holds on the new table (official two-valued reading).
        """
        cond = self.conditions[clue_id]
        todo = self._todo(table, clue_id)
        if not todo:
            return [table] if cond.holds(self.context(table)) else []
        out: list[Table] = []
        for rows in itertools.product(*(t[2] for t in todo)):
            if len({(r, j) for r, (_, j, _) in zip(rows, todo, strict=True)}) != len(todo):
                continue  # two values of one category in the same row
            new = _place(table, [(r, j, v) for r, (v, j, _) in zip(rows, todo, strict=True)])
            if cond.holds(self.context(new)):
                out.append(new)
        return out

    def release_variants(self, table: Table, clue_id: str) -> list[Table]:
        """What the *release's* generator can produce for one clue application (a superset of ``apply_clue``).

        Observed on all 2,000 released transitions (not documented in the spec): (1) the official generator
        assigns each value a row independently and writes them in turn, so two values of one category sent to
        the same row leave only one of them placed (for every category a non-empty subset of its values ends
        up placed, in distinct rows); (2) some released ``unsolvable_child`` tables additionally have every
        category with a single empty cell filled with its last free value. Used only to *accept* moves
        (``check_forward(..., release_compat=True)``), never to build trees.
        """
        cond = self.conditions[clue_id]
        todo = self._todo(table, clue_id)
        if not todo:
            base = [table] if cond.holds(self.context(table)) else []
        else:
            by_col: dict[int, list[tuple[Value, list[int]]]] = {}
            for v, j, rows in todo:
                by_col.setdefault(j, []).append((v, rows))
            per_col = []
            for j, items in by_col.items():
                rows = items[0][1]
                opts = []
                for size in range(1, len(items) + 1):
                    for subset in itertools.combinations([v for v, _ in items], size):
                        for perm in itertools.permutations(rows, size):
                            opts.append([(r, j, v) for r, v in zip(perm, subset, strict=True)])
                per_col.append(opts)
            base = []
            for combo in itertools.product(*per_col):
                new = _place(table, [cell for part in combo for cell in part])
                if cond.holds(self.context(new)):
                    base.append(new)
        out = list(base)
        for t in base:
            filled = self.fill_forced(t)
            if filled != t and filled not in out:
                out.append(filled)
        return out

    def fill_forced(self, table: Table) -> Table:
        """Fill each category that has exactly one empty cell with its one remaining value."""
        grid = [list(r) for r in table]
        for j in range(1, len(self.headers)):
            empty = [i for i in range(1, len(grid)) if grid[i][j] == EMPTY]
            if len(empty) == 1:
                free = [v for v in self.domains[j] if not any(_same(grid[i][j], v) for i in range(1, len(grid)))]
                if len(free) == 1:
                    grid[empty[0]][j] = free[0]
        return tuple(tuple(r) for r in grid)

    # -- structure ----------------------------------------------------------------------------------
    def well_formed(self, table: Table) -> bool:
        """Shape, headers and anchors as in the initial table; every filled cell a value of its category,
        no value twice in a category."""
        if len(table) != len(self.initial) or tuple(str(h) for h in table[0]) != self.headers:
            return False
        for i in range(1, len(table)):
            if len(table[i]) != len(self.headers) or not _same(table[i][0], self.initial[i][0]):
                return False
        for j in range(1, len(self.headers)):
            seen = set()
            for i in range(1, len(table)):
                v = table[i][j]
                if v == EMPTY:
                    continue
                if not any(_same(v, d) for d in self.domains[j]) or v in seen:
                    return False
                seen.add(v)
        return True

    def extends(self, small: Table, big: Table) -> bool:
        return all(a == EMPTY or _same(a, b) for ra, rb in zip(small[1:], big[1:], strict=True)
                   for a, b in zip(ra, rb, strict=True))

    def coerce(self, obj: Any) -> Table:
        """A model's table with cell types matched to the categories (``'9'`` -> ``9``, ``7`` -> ``7.0``)."""
        table = _table(obj)
        out: list[tuple[Value, ...]] = [tuple(str(h).strip() for h in table[0])]
        for row in table[1:]:
            new = []
            for j, v in enumerate(row):
                if j < len(self.domains) and v != EMPTY:
                    s = str(v).strip()
                    for d in self.domains[j]:
                        if _same(v, d) or (not isinstance(v, str) and not isinstance(d, str) and v == d) \
                                or s == str(d) or (isinstance(v, str) and s.lower() == str(d).lower()):
                            v = d
                            break
                new.append(v)
            out.append(tuple(new))
        return tuple(out)

    # -- exact completion search ----------------------------------------------------------------------
    def completions(self, table: Table, limit: int = MAX_SOLUTIONS) -> list[Table]:
        """Complete tables extending ``table`` that satisfy every clue (up to ``limit``).

        Depth-first over the unplaced attribute values (each into a free row of its category), always placing
        the value with the fewest rows left. A row is possible for a value when every clue that can notice
        the placement may still be True in the set-valued reading (an empty cell is any value its category
        still has free; an unplaced value's cell is anything in the rows it could take).
        """
        if not self.well_formed(table):
            return []
        n = len(table) - 1
        width = len(self.headers)
        grid = [list(r) for r in table[1:]]
        row_of: dict[Any, int] = {v: i for i, row in enumerate(grid) for v in row if v != EMPTY}
        free_vals = [set() if j == 0 else {v for v in self.domains[j] if v not in row_of} for j in range(width)]
        ctx = _SearchContext(row_of, grid, self._search_col, free_vals)
        conds = list(self.conditions.values())
        if not all(c.possible(ctx) for c in conds):
            return []
        todo = [(v, j) for j in range(1, width) for v in self.domains[j] if v not in row_of]
        placed = [False] * len(todo)
        out: list[Table] = []

        def options(t: int) -> list[int]:
            """Rows where value t can go now without making a clue impossible."""
            v, j = todo[t]
            free_vals[j].discard(v)
            ok = []
            for i in range(n):
                if grid[i][j] != EMPTY:
                    continue
                grid[i][j] = v
                row_of[v] = i
                if all(c.possible(ctx) for c in self._watch_col[j]):
                    ok.append(i)
                grid[i][j] = EMPTY
                del row_of[v]
            free_vals[j].add(v)
            return ok

        def rec(left: int) -> bool:
            if left == 0:
                out.append((table[0],) + tuple(tuple(r) for r in grid))
                return len(out) >= limit
            best, best_rows = -1, [0] * (n + 1)
            for t in range(len(todo)):  # the value with the fewest possible rows goes next
                if not placed[t]:
                    rows = options(t)
                    if len(rows) < len(best_rows):
                        best, best_rows = t, rows
                        if len(rows) <= 1:
                            break
            if not best_rows:
                return False
            v, j = todo[best]
            placed[best] = True
            free_vals[j].discard(v)
            for i in best_rows:
                grid[i][j] = v
                row_of[v] = i
                if rec(left - 1):
                    return True
                grid[i][j] = EMPTY
                del row_of[v]
            free_vals[j].add(v)
            placed[best] = False
            return False

        rec(len(todo))
        return out


class _SearchContext(Context):
    """Set-valued reading of a partial table during completion search."""

    __slots__ = ("value_col", "free_vals")

    def __init__(self, row_of: dict[Any, int], rows: list[list[Any]], value_col: dict[Any, int],
                 free_vals: list[set[Any]]):
        super().__init__(row_of, rows)
        self.value_col = value_col
        self.free_vals = free_vals

    def unplaced(self, row_value: Any, col: int) -> Any:
        cv = self.value_col.get(row_value)
        if cv is None:
            return UNKNOWN if row_value in self.value_col else EMPTY
        if cv == col:
            return row_value
        out: set[Any] = set()
        for row in self.rows:
            if row[cv] == EMPTY:
                v = row[col]
                if v == EMPTY:
                    out.update(self.free_vals[col])
                else:
                    out.add(v)
        return Maybe(tuple(out))

    def empty_cell(self, row: int, col: int) -> Any:
        return Maybe(tuple(self.free_vals[col]))


_SOLUTIONS: dict[Any, tuple[Table, ...]] = {}


def puzzle_solutions(puzzle: GridPuzzle) -> tuple[Table, ...]:
    """All complete solutions of a puzzle (at most MAX_SOLUTIONS), memoised per puzzle content."""
    key = puzzle.fingerprint()
    hit = _SOLUTIONS.get(key)
    if hit is None:
        if len(_SOLUTIONS) > 512:
            _SOLUTIONS.clear()
        hit = _SOLUTIONS[key] = tuple(puzzle.completions(puzzle.initial, MAX_SOLUTIONS))
    return hit


def _clue_score(puzzle: GridPuzzle, k: str) -> tuple[int, int]:
    text = puzzle.conditions[k].text
    anchors = sum(1 for v, h in mentions(puzzle.conditions[k].node)
                  if any(_same(v, a) for a in puzzle.domains[0]))
    return (text.count("==") + anchors, -int(k) if k.isdigit() else 0)


def default_clue_order(puzzle: GridPuzzle) -> list[str]:
    """Our DFS clue order: most constraining first (number of ``==`` plus anchor-value mentions, the
    official ``relevance_scores`` ingredients), ties by clue number."""
    return sorted(puzzle.clue_ids, key=lambda k: _clue_score(puzzle, k), reverse=True)


class GridPuzzleEngine:
    puzzle = "gridpuzzle"

    def __init__(self, puzzle: GridPuzzle, clue_order: Sequence[str] | None = None):
        self.p = puzzle
        order = list(clue_order) if clue_order is not None else default_clue_order(puzzle)
        rest = [k for k in default_clue_order(puzzle) if k not in order]
        unknown = [k for k in order if k not in puzzle.clues]
        if unknown:
            raise StateError(f"clue order names unknown clues {unknown}")
        self.order = order + rest
        self._cache: dict[Table, bool] = {}

    # -- state plumbing -------------------------------------------------------------------------------
    def root(self) -> GridState:
        return GridState(self.p.initial, ())

    def to_json(self, state: GridState) -> list[list[Value]]:
        return [list(r) for r in state.table]

    def from_json(self, obj: Any) -> GridState:
        return GridState(self.p.coerce(obj), ())

    def key(self, state: GridState) -> Table:
        return state.table

    # -- moves ----------------------------------------------------------------------------------------
    def next_clue(self, state: GridState) -> str | None:
        return next((k for k in self.order if k not in state.applied), None)

    def moves(self, state: GridState) -> list[Move]:
        k = self.next_clue(state)
        if k is None:
            return []
        return [(k, t) for t in self.p.apply_clue(state.table, k)]

    def apply(self, state: GridState, move: Move) -> GridState:
        return GridState(move[1], state.applied + (move[0],))

    # -- rules ----------------------------------------------------------------------------------------
    def path_tables(self, state: GridState) -> list[Table] | None:
        """Tables S(0)..S(m) applying ``state.applied`` in order that end at ``state.table`` (None: none)."""
        def rec(table: Table, i: int) -> list[Table] | None:
            if i == len(state.applied):
                return [table] if table == state.table else None
            for child in self.p.apply_clue(table, state.applied[i]):
                if self.p.extends(child, state.table):
                    rest = rec(child, i + 1)
                    if rest is not None:
                        return [table] + rest
            return None
        if len(set(state.applied)) != len(state.applied) or any(k not in self.p.clues for k in state.applied):
            return None
        return rec(self.p.initial, 0)

    def is_valid(self, state: GridState) -> bool:
        return self.p.well_formed(state.table) and self.path_tables(state) is not None

    def solutions(self) -> tuple[Table, ...]:
        return puzzle_solutions(self.p)

    def table_solvable(self, table: Table) -> bool:
        hit = self._cache.get(table)
        if hit is None:
            sols = self.solutions()
            if len(sols) < MAX_SOLUTIONS:
                hit = self.p.well_formed(table) and any(self.p.extends(table, s) for s in sols)
            else:
                hit = bool(self.p.completions(table, 1))
            self._cache[table] = hit
        return hit

    def is_solvable(self, state: GridState) -> bool:
        return self.table_solvable(state.table)

    def is_goal(self, state: GridState) -> bool:
        return len(state.applied) == len(self.p.clues) and self.table_solvable(state.table)

    def check_forward(self, state: GridState, nxt: GridState, release_compat: bool = False) -> str | None:
        """None if ``nxt`` applies one unapplied clue to ``state`` (any clue, not only the DFS's next one).
        With ``release_compat`` the release generator's variants count too (see ``release_variants``)."""
        table, target = state.table, nxt.table
        unapplied = [k for k in self.p.clue_ids if k not in state.applied]
        apply = self.p.release_variants if release_compat else self.p.apply_clue
        for k in unapplied:
            if target in apply(table, k):
                return None
        if self.p.well_formed(target) and self.p.extends(table, target) and self._reachable(table, target, unapplied):
            return MULTIPLE_MOVES
        return INVALID_MOVE

    def _reachable(self, table: Table, target: Table, clues: list[str]) -> bool:
        """``target`` is reachable from ``table`` by applying two or more of ``clues``."""
        seen: set[tuple[Table, frozenset[str]]] = set()
        frontier: list[tuple[Table, frozenset[str], int]] = [(table, frozenset(), 0)]
        while frontier:
            t, used, depth = frontier.pop()
            for k in clues:
                if k in used:
                    continue
                for child in self.p.apply_clue(t, k):
                    if not self.p.extends(child, target):
                        continue
                    if child == target and depth + 1 >= 2:
                        return True
                    item = (child, used | {k})
                    if item not in seen:
                        seen.add(item)
                        frontier.append((child, used | {k}, depth + 1))
        return False
