"""FineReason puzzle rewards in the sandbox: state checking and state transition judged by the puzzle engines.

A row of ``reasoneval finereason export`` carries its state record (``state``: JSON of the release-schema
record, inputs and label). The verdict is the benchmark's own scorer (``tasks.score_state_checking`` /
``tasks.score_state_transition``, the corrected reading):

* state checking: the last ``(A)``/``(B)`` (or the Solvable/Unsolvable word after ``Answer:``) must be the
  state's label;
* state transition at a solvable state: *any* valid minimal forward move scores 1 (not only the move written
  in the data), except the child the prompt shows as explored and unsolvable; at an unsolvable state the
  parent (backtracking) scores 1; several moves at once, an invalid move, a sibling or no parsable state
  score 0.

The model's state is read with the project's literal parser (never ``eval``); each verdict runs in a worker
of the time-bounded sandbox (``scoring/sandbox.py``) and is killed after ``timeout`` seconds (reward 0,
reason ``timeout``), so no completion can stall a training step. The reward functions: :mod:`.rewards`.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from ...scoring.sandbox import BudgetExhausted, RemoteError, SandboxPool, SandboxTimeout, WorkerCrashed

TASKS = ("state_checking", "state_transition")
DEFAULT_TIMEOUT_S = 10.0
MAX_WORKERS = 2
_PRELOAD = (f"{__package__}.tasks",)


@dataclass(frozen=True)
class PuzzleResult:
    reward: float
    reason: str  # correct | the ST error type (Invalid Move, Sibling, ...) | wrong-label | timeout | budget | error


def parse_state(state: Any, where: str) -> dict[str, Any]:
    """The state record of a row (a JSON string or an object); ValueError naming ``where`` otherwise."""
    rec = json.loads(state) if isinstance(state, str) else state
    if not isinstance(rec, dict) or not isinstance(rec.get("inputs"), dict) or \
            not isinstance((rec.get("outputs") or {}).get("current_status"), str):
        raise ValueError(f"{where}: 'state' is not a FineReason state record (inputs + outputs.current_status)")
    return rec


def verdict(puzzle: str, task: str, record: dict[str, Any], text: str) -> PuzzleResult:
    """The verdict in this process (no time bound; the sandbox worker runs this)."""
    from . import tasks

    if task == "state_checking":
        v = tasks.score_state_checking(record, text)
        return PuzzleResult(1.0 if v.correct else 0.0, "correct" if v.correct else
                            ("no-label" if v.extracted is None else "wrong-label"))
    v = tasks.score_state_transition(puzzle, record, text)
    return PuzzleResult(1.0 if v.correct else 0.0, "correct" if v.correct else str(v.error))


def _verdict_safe(puzzle: str, task: str, record: dict[str, Any], text: str) -> PuzzleResult:
    try:
        return verdict(puzzle, task, record, text)
    except Exception as e:  # noqa: BLE001 - odd model output is a zero reward, not a crashed step
        return PuzzleResult(0.0, f"error: {type(e).__name__}")


def _init_worker() -> None:  # pragma: no cover - runs in the worker process
    devnull = os.open(os.devnull, os.O_WRONLY)  # nothing a worker prints reaches the trainer's terminal
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


_POOL: SandboxPool | None = None
_LOCK = threading.Lock()


def _pool() -> SandboxPool:
    global _POOL
    with _LOCK:
        if _POOL is None or _POOL.broken:
            _POOL = SandboxPool(MAX_WORKERS, preload=_PRELOAD, initializer=_init_worker, memory_limit_mb=2048,
                                default_timeout=DEFAULT_TIMEOUT_S)
        return _POOL


def submit(puzzle: str, task: str, record: dict[str, Any], text: str,
           timeout: float = DEFAULT_TIMEOUT_S, deadline: float | None = None) -> Future[Any]:
    """Start one verdict in the sandbox (``deadline``: a ``time.monotonic()`` limit shared by a batch);
    :func:`result` turns the future into a :class:`PuzzleResult`."""
    return _pool().submit(_verdict_safe, puzzle, task, record, text, timeout=max(timeout, 1e-3), deadline=deadline)


def result(fut: Future[Any]) -> PuzzleResult:
    try:
        res = fut.result()
    except BudgetExhausted:
        return PuzzleResult(0.0, "budget")
    except (SandboxTimeout, WorkerCrashed):
        pool = _POOL
        if pool is not None and pool.broken:
            raise RuntimeError(f"puzzle reward worker pool failed: {pool.broken}") from None
        return PuzzleResult(0.0, "timeout")
    except RemoteError as e:
        return PuzzleResult(0.0, f"error: {str(e)[:200]}")
    assert isinstance(res, PuzzleResult)
    return res


def shutdown() -> None:
    global _POOL
    with _LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown()


atexit.register(shutdown)
