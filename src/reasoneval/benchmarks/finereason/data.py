"""Loaders for the released FineReason files: ``data/<puzzle>_{questions,states}.json``.

Despite the ``.json`` suffix every file is JSON Lines, one ``{"inputs": {...}, "outputs": {...}}`` per line.
Every error names the file and the 1-based line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from reasoneval.core import jsonl as _jsonl
from reasoneval.core.errors import DataError

from .engines import PUZZLES

DATA_DIR = Path(__file__).parent / "data"

STATE_INPUTS: dict[str, tuple[str, ...]] = {
    "sudoku": ("initial", "grandparent", "parent", "current", "unsolvable_child"),
    "graphcoloring": ("graph", "chromatic_number", "grandparent", "parent", "current", "unsolvable_child"),
    "game24": ("initial_state", "grandparent", "parent", "current", "unsolvable_child"),
    "gridpuzzle": ("question", "categories", "clues", "initial", "current", "applied_clues",
                   "initial_to_current", "unsolvable_child", "clue_applied_to_unsolvable_child"),
}
STATE_OUTPUTS: dict[str, tuple[str, ...]] = {
    "sudoku": ("final", "current_status"),
    "graphcoloring": ("current_status",),
    "game24": ("current_status",),
    "gridpuzzle": ("solution", "current_status"),
}
QUESTION_INPUTS: dict[str, tuple[str, ...]] = {
    "sudoku": ("initial",),
    "graphcoloring": ("graph", "chromatic_number"),
    "game24": ("initial_state",),
    "gridpuzzle": ("question", "categories", "clues", "initial"),
}
LABELS = ("Solvable", "Unsolvable")


__all__ = ["DataError"]  # the core's one data-error type


def _check_puzzle(puzzle: str) -> None:
    if puzzle not in PUZZLES:
        raise ValueError(f"unknown puzzle {puzzle!r}; expected one of {', '.join(PUZZLES)}")


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for every non-blank line; DataError on bad JSON or a non-object line."""
    return _jsonl.iter_jsonl(path, lambda p, n, m: DataError(_jsonl.located(p, n, m)))


def _validate(path: Path, lineno: int, rec: dict[str, Any], inputs: tuple[str, ...], outputs: tuple[str, ...],
              need_outputs: bool) -> None:
    inp = rec.get("inputs")
    if not isinstance(inp, dict):
        raise DataError(f"{path}:{lineno}: record has no 'inputs' object")
    missing = [k for k in inputs if k not in inp]
    if missing:
        raise DataError(f"{path}:{lineno}: inputs lack {', '.join(missing)}")
    out = rec.get("outputs")
    if out is None and not need_outputs:
        return
    if not isinstance(out, dict):
        raise DataError(f"{path}:{lineno}: record has no 'outputs' object")
    if not need_outputs:
        return
    missing = [k for k in outputs if k not in out]
    if missing:
        raise DataError(f"{path}:{lineno}: outputs lack {', '.join(missing)}")
    if "current_status" in outputs and out["current_status"] not in LABELS:
        raise DataError(f"{path}:{lineno}: current_status is {out['current_status']!r}, "
                        f"expected one of {LABELS}")


def default_path(puzzle: str, kind: str) -> Path:
    _check_puzzle(puzzle)
    return DATA_DIR / f"{puzzle}_{kind}.json"


def load_states(puzzle: str, path: str | Path | None = None, require_label: bool = True) -> list[dict[str, Any]]:
    """State records in release schema (default: the released ``<puzzle>_states.json``). With
    ``require_label=False`` the ``outputs`` object may be missing (states to be labelled)."""
    _check_puzzle(puzzle)
    p = Path(path) if path is not None else default_path(puzzle, "states")
    out = []
    for lineno, rec in iter_jsonl(p):
        _validate(p, lineno, rec, STATE_INPUTS[puzzle], STATE_OUTPUTS[puzzle], require_label)
        out.append(rec)
    return out


def load_questions(puzzle: str, path: str | Path | None = None) -> list[dict[str, Any]]:
    """Question (puzzle instance) records (default: the released ``<puzzle>_questions.json``)."""
    _check_puzzle(puzzle)
    p = Path(path) if path is not None else default_path(puzzle, "questions")
    out = []
    for lineno, rec in iter_jsonl(p):
        _validate(p, lineno, rec, QUESTION_INPUTS[puzzle], (), False)
        out.append(rec)
    return out


def puzzle_of_path(path: str | Path) -> str:
    """``.../sudoku_states.json`` -> ``sudoku`` (file names follow the release)."""
    name = Path(path).name
    for puzzle in PUZZLES:
        if name.startswith(puzzle + "_") or name == puzzle + ".json" or name.startswith(puzzle + "."):
            return puzzle
    raise ValueError(f"cannot tell the puzzle from file name {name!r}; name it <puzzle>_states.json")


def write_jsonl(records: Iterable[dict[str, Any]], fh: IO[str]) -> int:
    n = 0
    for rec in records:
        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        n += 1
    return n
