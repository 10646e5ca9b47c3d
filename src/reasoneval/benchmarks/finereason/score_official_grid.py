"""Grid state transition as the official ``GridPuzzleStateTransitionPrompter.get_answer`` and
``LogicGridPuzzleTree.is_next_state`` read it (``-O scoring=official``). Written from a reading of
``DAMO-NLP-SG/FineReason`` ``prompting.py`` and ``gridpuzzle_tree.py``; no code is taken from it, and no clue
is handed to ``eval``: conditions are evaluated by ``engines.clue_lang`` in its official two-valued reading.

* The raw output after the last ``Next state:`` (no marker: the whole text), newlines removed; the last
  ``[[ ... ]]`` (``\\[\\s*\\[.*?\\]\\s*\\]``) read by ``ast.literal_eval``.
* At an unsolvable state the answer must *equal* the parent (``initial_to_current[-2]``); one of the parent's
  official next states is ``sibling``, anything else ``backtracking failure``. At a solvable state it must be
  one of the current state's official next states (``invalid move`` otherwise) and not *equal* the shown
  unsolvable child (``unsolvable child``). Equality is Python's: ``"9"`` is not ``9``, ``9.0`` is ``9``.
* The official next states of a table, for each unapplied clue: the values the clue's *condition text*
  mentions - every ``'quoted'`` string and every ``\\b\\d+\\b`` number, numerals turned into ``int`` - that lie
  in a category's values (the first such category, in header order; a value already placed there is
  skipped), each sent to every empty cell of its category independently; a placement is kept when the
  condition holds on the new table. A clue that places nothing keeps the table when it holds. A decimal such
  as ``2.5`` is read as the numbers 2 and 5, as upstream.
* Two values of one category sent to the same row: the official code writes them in turn, so the one
  written last stays, and which one that is follows the iteration order of a Python ``set`` of strings
  (it changes with ``PYTHONHASHSEED``). Here every winner is accepted, so a table the official code builds
  under some hash seed is always accepted (upstream, some are refused under other seeds).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from .engines.clue_lang import Condition, compile_condition
from .engines.gridpuzzle import table_context
from .score_official_base import python_literal
from .score_official_e2e import last_table

_QUOTED = re.compile(r"'([^']+)'")
_NUMBER = re.compile(r"\b\d+\b")
OK = "1"


class _Grid:
    def __init__(self, record: dict[str, Any]) -> None:
        inp = record["inputs"]
        solution = record["outputs"]["solution"]
        self.headers = list(solution[0])
        self.domains = [(h, {row[j] for row in solution[1:]}) for j, h in enumerate(self.headers)]
        self.clues = inp["clues"]
        self.columns = {h: j for j, h in enumerate(inp["initial"][0])}
        self._compiled: dict[str, Condition] = {}

    def holds(self, condition: str, table: list[list[Any]]) -> bool:
        c = self._compiled.get(condition)
        if c is None:
            c = self._compiled[condition] = compile_condition(condition, self.columns)
        return c.holds(table_context(table))  # type: ignore[arg-type]

    def next_tables(self, table: list[list[Any]], condition: str) -> list[list[list[Any]]]:
        mentioned = set(_QUOTED.findall(condition) + _NUMBER.findall(condition))
        if not mentioned:
            return [table] if self.holds(condition, table) else []
        column_of: dict[Any, int] = {}
        for raw in mentioned:
            val: Any = int(raw) if raw.isnumeric() else raw
            for header, domain in self.domains:
                if val in domain:
                    j = table[0].index(header) if header in table[0] else -1
                    if j == -1:
                        continue
                    if not any(table[i][j] == val for i in range(1, len(table))):
                        column_of[val] = j
                    break
        if not column_of:
            return [table] if self.holds(condition, table) else []
        values = list(column_of)
        rows = []
        for v in values:
            j = column_of[v]
            free = [i for i in range(1, len(table)) if table[i][j] in ("", v)]
            if not free:
                return []
            rows.append(free)
        out: list[list[list[Any]]] = []
        for combo in itertools.product(*rows):
            cells: dict[tuple[int, int], list[Any]] = {}
            for v, r in zip(values, combo, strict=True):
                cells.setdefault((r, column_of[v]), []).append(v)
            for winners in itertools.product(*cells.values()):
                new = [list(row) for row in table]
                for (r, j), v in zip(cells, winners, strict=True):
                    new[r][j] = v
                if self.holds(condition, new) and new not in out:
                    out.append(new)
        return out

    def is_next(self, prev: list[list[Any]], nxt: Any, unapplied: list[str]) -> bool:
        return any(nxt == t for cond in unapplied for t in self.next_tables(prev, cond))


def official_grid_st(record: dict[str, Any], text: str) -> tuple[str, Any]:
    """(the official label, ``"1"`` when correct; the table read, or None)."""
    try:
        match = last_table(text.split("Next state:")[-1].replace("\n", ""))
        if match is None:
            return "parsing error", None
        result = python_literal(match)
        inp, status = record["inputs"], record["outputs"]["current_status"]
        grid = _Grid(record)
        applied = inp["applied_clues"]
        if status == "Unsolvable":
            parent = inp["initial_to_current"][-2]
            if result == parent:
                return OK, result
            unapplied = [c["conditions"] for k, c in grid.clues.items() if k not in applied[:-1]]
            return ("sibling" if grid.is_next(parent, result, unapplied) else "backtracking failure"), result
        unapplied = [c["conditions"] for k, c in grid.clues.items() if k not in applied]
        if not grid.is_next(inp["current"], result, unapplied):
            return "invalid move", result
        return (OK if result != inp["unsolvable_child"] else "unsolvable child"), result
    except Exception:  # the official reader catches everything (a bare except)
        return "parsing error", None
