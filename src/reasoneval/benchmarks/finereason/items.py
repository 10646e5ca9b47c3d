"""FineReason items: the data file of a puzzle and mode, its records as :class:`~reasoneval.core.values.Item`,
and what an item knows about its state (gold, depth, Sudoku empty cells).

Item ids are the 0-based record index in the data file (stable). ``item.data`` is the record
(``inputs``/``outputs``) plus ``puzzle``, ``task`` (the mode) and ``depth``, so it can be handed to the
``tasks.py`` scorers as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.values import Item
from . import tasks
from .data import load_questions, load_states
from .engines import PUZZLES
from .engines.game24 import Game24Engine
from .engines.graphcoloring import GraphColoringEngine
from .modes import E2E, SC, ST


def depth_of(puzzle: str, inputs: dict[str, Any]) -> int | None:
    """Moves from the tree root to ``inputs['current']`` (None when it cannot be told)."""
    try:
        current = inputs["current"]
        if puzzle == "sudoku":
            filled = sum(1 for row in current for cell in row if cell)
            return filled - sum(1 for row in inputs["initial"] for cell in row if cell)
        if puzzle == "graphcoloring":  # the root has vertex 0 coloured (symmetry breaking)
            return sum(1 for color in current if color) - 1
        if puzzle == "game24":
            return len(inputs["initial_state"]) - len(current)
        if puzzle == "gridpuzzle":
            return len(inputs["applied_clues"])
    except (KeyError, TypeError):
        return None
    return None


def sudoku_empty_cells(data: Mapping[str, Any]) -> int | None:
    """Empty cells (0) of a Sudoku state's current grid; None when the record has no 9x9 grid."""
    grid = (data.get("inputs") or {}).get("current") if isinstance(data.get("inputs"), dict) else None
    if not isinstance(grid, list) or not all(isinstance(row, list) for row in grid):
        return None
    return sum(1 for row in grid for cell in row if cell == 0 or cell == "0")


def reference_solution(puzzle: str, record: dict[str, Any]) -> Any:
    """A gold answer for an end-to-end item: the released solution (Sudoku, Grid) or one valid solution found
    by the exact solver (Graph Coloring, Game of 24: any valid answer is accepted)."""
    outputs = record.get("outputs") or {}
    if puzzle == "sudoku" and outputs.get("final") is not None:
        return outputs["final"]
    if puzzle == "gridpuzzle" and outputs.get("solution") is not None:
        return outputs["solution"]
    try:
        engine = tasks.engine_for(puzzle, record)
        if isinstance(engine, GraphColoringEngine):
            coloring = engine.find_coloring()
            return None if coloring is None else list(coloring)
        if isinstance(engine, Game24Engine):
            expr = engine.solution()
            return None if expr is None else f"{expr.render()} = 24"
        solution = engine.solution() if hasattr(engine, "solution") else None  # type: ignore[attr-defined]
        return None if solution is None else engine.to_json(solution)
    except (ValueError, TypeError, KeyError):
        return None


def gold_of(puzzle: str, mode: str, record: dict[str, Any]) -> Any:
    """The gold of a record in ``mode``: the label (SC), the reference next state (ST) or a reference
    solution (end-to-end); None when it cannot be found."""
    if mode == SC:
        return record["outputs"]["current_status"]
    if mode == ST:  # the parent at an unsolvable state, else the first solvable unexplored child (DFS order)
        from .export import target_state  # export pulls in the generators: only state transition needs it

        try:
            return target_state(puzzle, record)
        except (ValueError, TypeError, KeyError):
            return None
    return reference_solution(puzzle, record)


def make_item(puzzle: str, mode: str, ident: str, record: dict[str, Any]) -> Item:
    """An Item for one release record (a state record for SC/ST, a question record for end-to-end)."""
    inputs = record["inputs"]
    data: dict[str, Any] = {"inputs": inputs, "outputs": record.get("outputs") or {}, "puzzle": puzzle,
                            "task": mode, "depth": None if mode == E2E else depth_of(puzzle, inputs)}
    return Item("finereason", puzzle, ident, data, gold_of(puzzle, mode, data))


def puzzle_order(name: str) -> tuple[int, str]:
    """Sort key: the puzzles in release order, anything else after them by name."""
    return (PUZZLES.index(name) if name in PUZZLES else len(PUZZLES), name)


def data_file(folder: Path, puzzle: str, mode: str) -> Path:
    """The data file of ``puzzle`` in ``mode``: ``folder`` itself when it is a file (e.g. from
    ``reasoneval generate finereason --questions``: this puzzle's data), else the release-named file in it."""
    if folder.is_file():
        return folder
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: not a folder (FineReason data: <puzzle>_states.json / "
                                f"<puzzle>_questions.json)")
    path = folder / f"{puzzle}_{'questions' if mode == E2E else 'states'}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return path


def read_items(path: Path, puzzle: str, mode: str) -> list[Item]:
    """The items of one data file: question records for end-to-end, state records otherwise."""
    records = load_questions(puzzle, path) if mode == E2E else load_states(puzzle, path)
    return [make_item(puzzle, mode, str(index), record) for index, record in enumerate(records)]
