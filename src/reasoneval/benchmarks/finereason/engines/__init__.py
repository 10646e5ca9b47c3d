"""Puzzle engines and the mapping from a release record to its engine."""

from __future__ import annotations

from typing import Any

from .base import Engine, StateError
from .game24 import Game24Engine
from .graphcoloring import GraphColoringEngine
from .gridpuzzle import GridPuzzle, GridPuzzleEngine
from .sudoku import SudokuEngine

PUZZLES = ("sudoku", "graphcoloring", "game24", "gridpuzzle")


def engine_for_record(puzzle: str, record: dict[str, Any], **kwargs: Any) -> Engine[Any, Any]:
    """The engine for one released question/state record (``{"inputs": ..., "outputs": ...}``)."""
    inputs = record.get("inputs")
    if not isinstance(inputs, dict):
        raise StateError("record has no 'inputs' object")
    outputs = record.get("outputs") or {}
    try:
        if puzzle == "sudoku":
            return SudokuEngine(inputs["initial"])
        if puzzle == "graphcoloring":
            return GraphColoringEngine(inputs["graph"], inputs["chromatic_number"])
        if puzzle == "game24":
            return Game24Engine(inputs["initial_state"], **kwargs)
        if puzzle == "gridpuzzle":
            return GridPuzzleEngine(GridPuzzle.from_inputs(inputs, outputs.get("solution")), **kwargs)
    except KeyError as exc:
        raise StateError(f"{puzzle} record lacks inputs[{exc}]") from exc
    raise ValueError(f"unknown puzzle {puzzle!r}; expected one of {PUZZLES}")


__all__ = ["PUZZLES", "Engine", "Game24Engine", "GraphColoringEngine", "GridPuzzle", "GridPuzzleEngine",
           "StateError", "SudokuEngine", "engine_for_record"]
