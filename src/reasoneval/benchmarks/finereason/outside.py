"""The ``rescore`` adapter: JSON-lines rows in the release schema plus a ``response`` field -> (item, mode,
completion) rows; the JSON line of a re-scored row; the cause of a ``rescore --diff`` disagreement.

The task of a row: ``options["mode"]`` (or ``options["task"]``) if given, else the row's ``task`` / ``mode``
field, else the file name (``..._state_transition...``, ``..._e2e...``), else ``end-to-end`` for a question
record (no ``inputs.current``), else ``state-checking``. The puzzle: the row's ``puzzle`` field, else the file
name (``<puzzle>_...``), else the shape of ``inputs``. The item id: the row's ``id``, else its 0-based ordinal
in its file. Scoring, summarising and rendering are the runner's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...core.benchmark import OutsideRow
from ...core.errors import DataError, OptionError
from ...core.jsonl import iter_jsonl_tolerant
from ...core.response import Response
from ...core.values import Completion, Item, Verdict
from .data import LABELS, QUESTION_INPUTS, STATE_INPUTS
from .engines import PUZZLES
from .items import make_item
from .modes import E2E, SC, ST, normalize_mode


def outside_rows(paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
    """The rows of the ``.jsonl`` / ``.json`` files under ``paths``; a bad row is one :class:`DataError`
    naming its file and line, a bad ``mode`` option one :class:`OptionError`."""
    forced = options.get("mode") or options.get("task")
    try:
        forced_mode = normalize_mode(forced) if forced else None
    except ValueError as e:  # a wrong option, not a bad row
        raise OptionError(str(e)) from None
    files = list(rescore_files(paths))
    if not files:
        yield DataError("no .jsonl/.json files found in " + ", ".join(paths))
        return
    for path in files:
        for ordinal, (line, record) in enumerate(iter_jsonl_tolerant(path, DataError)):
            if isinstance(record, DataError):
                yield record
                continue
            where = f"{path}:{line}"
            try:
                mode, item, response = row_item(path, ordinal, record, forced_mode)
            except (ValueError, KeyError) as e:
                yield DataError(f"{where}: {e}")
                continue
            yield OutsideRow(item, mode, Completion(response), where)


def outside_json(row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
    """One re-scored row as ``rescore --json`` writes it."""
    return {"id": row.item.id, "puzzle": row.item.subset, "task": row.mode, "correct": verdict.correct,
            "extracted": verdict.extracted, "method": str(verdict.method),
            "error_type": verdict.detail.get("error_type")}


def diff_reason(row: OutsideRow, final_text: str, strict: bool) -> str:
    """The cause of the disagreement between the two readings of this answer (``rescore --diff``;
    ``diff_cause``, imported on first use)."""
    from .diff_cause import diff_cause

    completion = row.completion
    cut_off = Response.of(completion.text, completion.finish_reason, completion.reasoning).truncated
    return diff_cause(row.item.subset, row.mode, row.item.data, completion.text or "", final_text, cut_off,
                      strict)


def row_item(path: Path, ordinal: int, record: dict[str, Any], forced: str | None) -> tuple[str, Item, str]:
    """(mode, item, response) of one row; ValueError / KeyError saying what the row lacks."""
    inputs = record.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError("row has no 'inputs' object")
    response = record.get("response")
    if not isinstance(response, str):
        raise ValueError("row has no 'response' string")
    mode = forced
    if mode is None:
        tag = record.get("task", record.get("mode"))
        mode = normalize_mode(tag) if tag is not None else (mode_from_name(path.name) or (
            SC if "current" in inputs else E2E))
    puzzle = record.get("puzzle") or puzzle_from_name(path.name) or puzzle_from_inputs(inputs)
    if puzzle not in PUZZLES:
        raise ValueError(f"cannot tell the puzzle (got {puzzle!r}); add a 'puzzle' field "
                         f"({', '.join(PUZZLES)})")
    needed = QUESTION_INPUTS[puzzle] if mode == E2E else STATE_INPUTS[puzzle]
    missing = [key for key in needed if key not in inputs]
    if missing:
        raise ValueError(f"{puzzle} {mode} row: inputs lack {', '.join(missing)}")
    if mode != E2E:
        status = (record.get("outputs") or {}).get("current_status")
        if status not in LABELS:
            raise ValueError(f"{mode} row: outputs.current_status is {status!r}, expected one of {LABELS}")
    ident = str(record["id"]) if record.get("id") is not None else str(ordinal)
    return mode, make_item(puzzle, mode, ident, record), response


def rescore_files(paths: Sequence[str]) -> Iterator[Path]:
    """The files to read: a folder's ``.jsonl`` / ``.json`` files (recursively, sorted), a file as given."""
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(found for found in path.rglob("*")
                              if found.is_file() and found.suffix in (".jsonl", ".json"))
        else:
            yield path


def mode_from_name(name: str) -> str | None:
    """The mode a file name tells (``..._state_transition...``, ``..._e2e...``), if any."""
    normalized = name.lower().replace("-", "_")
    if "state_transition" in normalized:
        return ST
    if "state_checking" in normalized:
        return SC
    if "e2e" in normalized or "end_to_end" in normalized:
        return E2E
    return None


def puzzle_from_name(name: str) -> str | None:
    """The puzzle a file name starts with (``<puzzle>_...`` / ``<puzzle>.``), if any."""
    lowered = name.lower()
    for puzzle in PUZZLES:
        if lowered.startswith(puzzle + "_") or lowered.startswith(puzzle + "."):
            return puzzle
    return None


def puzzle_from_inputs(inputs: dict[str, Any]) -> str | None:
    """The puzzle the keys of a record's ``inputs`` tell, if any."""
    if "clues" in inputs:
        return "gridpuzzle"
    if "graph" in inputs:
        return "graphcoloring"
    if "initial_state" in inputs:
        return "game24"
    if "initial" in inputs:
        return "sudoku"
    return None
