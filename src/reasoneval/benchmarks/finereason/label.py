"""Solvability labels for state records, with one engine per puzzle instance (engines cache solver work)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .engines import engine_for_record
from .engines.base import Engine, label
from .engines.gridpuzzle import GridPuzzleEngine, GridState

INSTANCE_KEYS: dict[str, tuple[str, ...]] = {
    "sudoku": ("initial",),
    "graphcoloring": ("graph", "chromatic_number"),
    "game24": ("initial_state",),
    "gridpuzzle": ("question", "categories", "clues", "initial"),
}


class EngineCache:
    """Engines keyed by the instance-defining inputs of a record."""

    def __init__(self, puzzle: str):
        self.puzzle = puzzle
        self._engines: dict[str, Engine[Any, Any]] = {}

    def get(self, record: dict[str, Any]) -> Engine[Any, Any]:
        inputs = record.get("inputs") or {}
        key = json.dumps([inputs.get(k) for k in INSTANCE_KEYS[self.puzzle]], sort_keys=True)
        eng = self._engines.get(key)
        if eng is None:
            eng = self._engines[key] = engine_for_record(self.puzzle, record)
        return eng


def state_of(engine: Engine[Any, Any], record: dict[str, Any], field: str = "current") -> Any:
    """The state stored under ``inputs[field]`` (Grid: with its applied clues when ``field == 'current'``)."""
    inputs = record["inputs"]
    if isinstance(engine, GridPuzzleEngine):
        applied = tuple(inputs.get("applied_clues") or ()) if field == "current" else ()
        return GridState(engine.p.coerce(inputs[field]), applied)
    return engine.from_json(inputs[field])


def label_records(puzzle: str, records: Iterable[dict[str, Any]]) -> list[str]:
    """``Solvable``/``Unsolvable`` for each record's current state, from the exact solver."""
    cache = EngineCache(puzzle)
    out = []
    for rec in records:
        eng = cache.get(rec)
        out.append(label(eng.is_solvable(state_of(eng, rec))))
    return out
