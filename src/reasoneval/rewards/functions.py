"""Reward functions in TRL's convention: ``f(prompts, completions, **columns) -> list[float]``.

``completions`` are strings or chat message lists; every other dataset column arrives as a keyword list with
one value per completion (the columns ``reasoneval finereason export`` writes: ``source``, ``task``,
``puzzle``, ``state``, ``gold``, ``answer``, ...). Keywords a trainer adds (``completion_ids``,
``trainer_state``, ``log_extra``, ...) are accepted and ignored, except ``log_metric``: when given, the mean
reward of each kind of row in the batch is logged as ``finereason/<kind>`` (``math``, ``state_checking``,
``state_transition``).

    from trl import GRPOTrainer
    from reasoneval.rewards import finereason_reward
    trainer = GRPOTrainer(model, reward_funcs=finereason_reward, train_dataset=load_dataset("json", ...))
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from . import math as M
from . import puzzle as P
from .extract import completion_text

MATH_WORKERS = 4  # threads waiting on the math-verify sandbox (its own pool bounds the processes)


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


def score_rows(completions: Sequence[Any], columns: dict[str, Any], *, puzzle_timeout: float = P.DEFAULT_TIMEOUT_S,
               math_timeout: float = M.DEFAULT_TIMEOUT_S) -> list[RowReward]:
    """One :class:`RowReward` per completion; puzzle and math verdicts run concurrently in their sandboxes."""
    n = len(completions)
    source, task, puzzle, state = (_column(columns, k, n) for k in ("source", "task", "puzzle", "state"))
    gold, answer = _column(columns, "gold", n), _column(columns, "answer", n)
    kinds = [_kind(source[i], task[i], i) for i in range(n)]
    texts = [completion_text(c) for c in completions]
    pending: list[tuple[str, Future[Any]]] = []
    with ThreadPoolExecutor(MATH_WORKERS) as threads:
        for i, kind in enumerate(kinds):
            if kind == "math":
                pending.append((kind, threads.submit(M.math_verdict, M.gold_of(gold[i], answer[i]), texts[i],
                                                     math_timeout)))
            else:
                if not isinstance(puzzle[i], str):
                    raise ValueError(f"row {i}: a {kind} row needs its 'puzzle' column")
                rec = P.parse_state(state[i], f"row {i}")
                pending.append((kind, P.submit(puzzle[i], kind, rec, texts[i], puzzle_timeout)))
        out = []
        for kind, fut in pending:
            if kind == "math":
                m = fut.result()
                out.append(RowReward(m.reward, kind, m.reason))
            else:
                p = P.result(fut)
                out.append(RowReward(p.reward, kind, p.reason))
    return out


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
    with ThreadPoolExecutor(MATH_WORKERS) as threads:
        futs = [threads.submit(M.math_verdict, M.gold_of(gold[i], answer[i]), completion_text(c))
                for i, c in enumerate(completions)]
        return [f.result().reward for f in futs]


RewardFunc = Callable[..., list[float]]
