"""Reward functions in TRL's convention: ``f(prompts, completions, **columns) -> list[float]``.

``completions`` are strings or chat message lists; every other dataset column arrives as a keyword list with
one value per completion (the columns ``reasoneval finereason export`` writes: ``source``, ``task``,
``puzzle``, ``state``, ``gold``, ``answer``, ...). Keywords a trainer adds (``completion_ids``,
``trainer_state``, ``log_extra``, ...) are accepted and ignored, except ``log_metric``: when given, the mean
reward of each kind of row in the batch is logged as ``finereason/<kind>`` (``math``, ``state_checking``,
``state_transition``).

Time: each verdict runs in a sandbox worker killed after its timeout (puzzles 10 s, math 5 s), and one call
returns within ``BATCH_BUDGET_S`` (60 s) whatever the completions hold: verdicts not decided by then score 0.

    from trl import GRPOTrainer
    from reasoneval.rewards import finereason_reward
    trainer = GRPOTrainer(model, reward_funcs=finereason_reward, train_dataset=load_dataset("json", ...))
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from . import math as M
from . import puzzle as P
from .extract import completion_text

MATH_WORKERS = 4  # threads waiting on the math-verify sandbox (its own pool bounds the processes)
BATCH_BUDGET_S = 60.0  # one call's verdicts: those still undecided then score 0 (each also has its own timeout)


@dataclass(frozen=True)
class RowReward:
    reward: float
    kind: str  # math | state_checking | state_transition
    reason: str


def _column(columns: dict[str, Any], name: str, n: int) -> list[Any]:
    col = columns.get(name)
    if col is None:
        return [None] * n
    if isinstance(col, str | bytes) or not isinstance(col, Sequence):
        raise ValueError(f"column {name!r} must be a list with one value per completion, got {type(col).__name__}")
    if len(col) != n:
        raise ValueError(f"column {name!r} has {len(col)} value(s) for {n} completion(s)")
    return list(col)


def _kind(source: Any, task: Any, i: int) -> str:
    if source == "math" or task == "math":
        return "math"
    if task in P.TASKS:
        return str(task)
    raise ValueError(f"row {i}: no reward for source={source!r} task={task!r} (expected task "
                     f"{', '.join(P.TASKS)} or math; are these rows of `reasoneval finereason export`?)")


@dataclass(frozen=True)
class _Job:
    kind: str
    text: str
    gold: str | None = None  # math
    puzzle: str = ""  # puzzle rows
    record: dict[str, Any] | None = None


def score_rows(completions: Sequence[Any], columns: dict[str, Any], *, puzzle_timeout: float = P.DEFAULT_TIMEOUT_S,
               math_timeout: float = M.DEFAULT_TIMEOUT_S, budget_s: float = BATCH_BUDGET_S) -> list[RowReward]:
    """One :class:`RowReward` per completion of a FineReason mix (every row is checked before any runs)."""
    n = len(completions)
    source, task, puzzle, state = (_column(columns, k, n) for k in ("source", "task", "puzzle", "state"))
    gold, answer = _column(columns, "gold", n), _column(columns, "answer", n)
    jobs = []
    for i, c in enumerate(completions):
        kind = _kind(source[i], task[i], i)
        if kind == "math":
            jobs.append(_Job(kind, completion_text(c), gold=M.gold_of(gold[i], answer[i])))
            continue
        if not isinstance(puzzle[i], str):
            raise ValueError(f"row {i}: a {kind} row needs its 'puzzle' column")
        jobs.append(_Job(kind, completion_text(c), puzzle=puzzle[i], record=P.parse_state(state[i], f"row {i}")))
    return _run(jobs, puzzle_timeout, math_timeout, budget_s)


def _run(jobs: Sequence[_Job], puzzle_timeout: float, math_timeout: float, budget_s: float) -> list[RowReward]:
    """Puzzle verdicts on the puzzle sandbox, math verdicts on math-verify's, concurrently; a verdict still
    undecided when the call's budget runs out scores 0 (reason ``budget``)."""
    deadline = time.monotonic() + budget_s
    threads = ThreadPoolExecutor(MATH_WORKERS)
    try:
        pending: list[Future[Any]] = []
        for j in jobs:
            if j.kind == "math":
                pending.append(threads.submit(M.math_verdict, j.gold, j.text, math_timeout))
            else:
                assert j.record is not None
                pending.append(P.submit(j.puzzle, j.kind, j.record, j.text, puzzle_timeout, deadline=deadline))
        out = []
        for j, fut in zip(jobs, pending, strict=True):
            if j.kind == "math":
                try:
                    m = fut.result(timeout=max(0.0, deadline - time.monotonic()))
                except FutureTimeout:
                    out.append(RowReward(0.0, j.kind, "budget"))
                    continue
                out.append(RowReward(m.reward, j.kind, m.reason))
            else:
                p = P.result(fut)
                out.append(RowReward(p.reward, j.kind, p.reason))
        return out
    finally:  # queued math comparisons are dropped; one already running ends within math_timeout
        threads.shutdown(wait=False, cancel_futures=True)


def _log(rows: Sequence[RowReward], log_metric: Any) -> None:
    if not callable(log_metric):
        return
    by_kind: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_kind[r.kind].append(r.reward)
    for kind, vals in sorted(by_kind.items()):
        log_metric(f"finereason/{kind}", sum(vals) / len(vals))


def finereason_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                      **columns: Any) -> list[float]:
    """1.0 / 0.0 per completion of a FineReason training mix: puzzle rows by the engines (state checking,
    state transition), math rows by math-verify against the row's gold final answer."""
    if completions is None:
        raise ValueError("finereason_reward needs completions")
    rows = score_rows(completions, columns)
    _log(rows, columns.get("log_metric"))
    return [r.reward for r in rows]


def math_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                **columns: Any) -> list[float]:
    """1.0 / 0.0 per completion: its final answer against the ``gold`` column (or the final answer of the
    ``answer`` / ``solution`` column), decided by math-verify in the time-bounded sandbox."""
    if completions is None:
        raise ValueError("math_reward needs completions")
    n = len(completions)
    gold = _column(columns, "gold", n)
    answer = _column(columns, "answer", n) if "answer" in columns else _column(columns, "solution", n)
    jobs = [_Job("math", completion_text(c), gold=M.gold_of(gold[i], answer[i])) for i, c in enumerate(completions)]
    return [r.reward for r in _run(jobs, P.DEFAULT_TIMEOUT_S, M.DEFAULT_TIMEOUT_S, BATCH_BUDGET_S)]
