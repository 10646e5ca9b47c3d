"""Reward functions in TRL's convention: ``f(prompts, completions, **columns) -> list[float]``.

``completions`` are strings or chat message lists; every other dataset column arrives as a keyword list with
one value per completion. Keywords a trainer adds (``completion_ids``, ``trainer_state``, ``log_extra``, ...)
are accepted and ignored.

:func:`math_reward` is the generic one; a benchmark adds its own through ``Benchmark.rewards()`` (importable
from :mod:`reasoneval.rewards` by name) and scores its rows with :func:`score_jobs`: math rows on math-verify's
sandbox, its own rows on whatever it starts (:data:`Start`), all under one call's time budget.

Time: each verdict runs in a sandbox worker killed after its timeout (math 5 s), and one call returns within
``BATCH_BUDGET_S`` (60 s) whatever the completions hold: verdicts not decided by then score 0.

    from trl import GRPOTrainer
    from reasoneval.rewards import math_reward
    trainer = GRPOTrainer(model, reward_funcs=math_reward, train_dataset=load_dataset("json", ...))
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from . import math as M
from .extract import completion_text

MATH_WORKERS = 4  # threads waiting on the math-verify sandbox (its own pool bounds the processes)
BATCH_BUDGET_S = 60.0  # one call's verdicts: those still undecided then score 0 (each also has its own timeout)


@dataclass(frozen=True)
class RowReward:
    reward: float
    kind: str  # the kind of row (a benchmark's task, ...), what log_means groups by
    reason: str


@dataclass(frozen=True)
class MathJob:
    """A row with a gold final answer: the completion's final answer against ``gold``, by math-verify.
    ``kind``: the row's kind in its :class:`RowReward` (what ``log_means`` groups by)."""

    text: str
    gold: str | None
    kind: str = "final-answer"


#: a benchmark's own verdict: started with the call's deadline (a ``time.monotonic()`` limit), it returns the
#: function that waits for its :class:`RowReward` (which must honour the deadline itself)
Start = Callable[[float], Callable[[], RowReward]]


def column(columns: dict[str, Any], name: str, n: int) -> list[Any]:
    """A dataset column as TRL hands it (one value per completion); Nones when the dataset has none."""
    col = columns.get(name)
    if col is None:
        return [None] * n
    if isinstance(col, str | bytes) or not isinstance(col, Sequence):
        raise ValueError(f"column {name!r} must be a list with one value per completion, got {type(col).__name__}")
    if len(col) != n:
        raise ValueError(f"column {name!r} has {len(col)} value(s) for {n} completion(s)")
    return list(col)


def score_jobs(jobs: Sequence[MathJob | Start], math_timeout: float = M.DEFAULT_TIMEOUT_S,
               budget_s: float = BATCH_BUDGET_S) -> list[RowReward]:
    """Math verdicts on math-verify's sandbox and the other jobs as they start themselves, concurrently; a
    math verdict still undecided when the call's budget runs out scores 0 (reason ``budget``)."""
    deadline = time.monotonic() + budget_s
    threads = ThreadPoolExecutor(MATH_WORKERS)
    try:
        pending: list[Future[Any] | Callable[[], RowReward]] = []
        for j in jobs:
            if isinstance(j, MathJob):
                pending.append(threads.submit(M.math_verdict, j.gold, j.text, math_timeout))
            else:
                pending.append(j(deadline))
        out = []
        for j, fut in zip(jobs, pending, strict=True):
            if not isinstance(fut, Future):
                out.append(fut())
                continue
            kind = j.kind if isinstance(j, MathJob) else ""
            try:
                m = fut.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                out.append(RowReward(0.0, kind, "budget"))
                continue
            out.append(RowReward(m.reward, kind, m.reason))
        return out
    finally:  # queued math comparisons are dropped; one already running ends within math_timeout
        threads.shutdown(wait=False, cancel_futures=True)


def log_means(rows: Sequence[RowReward], log_metric: Any, prefix: str) -> None:
    """The mean reward of each kind of row, as ``<prefix>/<kind>``, when the trainer passed ``log_metric``."""
    if not callable(log_metric):
        return
    by_kind: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_kind[r.kind].append(r.reward)
    for kind, vals in sorted(by_kind.items()):
        log_metric(f"{prefix}/{kind}", sum(vals) / len(vals))


def math_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                **columns: Any) -> list[float]:
    """1.0 / 0.0 per completion: its final answer against the ``gold`` column (or the final answer of the
    ``answer`` / ``solution`` column), decided by math-verify in the time-bounded sandbox."""
    if completions is None:
        raise ValueError("math_reward needs completions")
    n = len(completions)
    gold = column(columns, "gold", n)
    answer = column(columns, "answer", n) if "answer" in columns else column(columns, "solution", n)
    jobs = [MathJob(completion_text(c), M.gold_of(gold[i], answer[i])) for i, c in enumerate(completions)]
    return [r.reward for r in score_jobs(jobs)]
