"""Reward functions in TRL's convention: ``f(prompts, completions, **columns) -> list[float]``.

``completions`` are strings or chat message lists; every other dataset column arrives as a keyword list with
one value per completion. Keywords a trainer adds (``completion_ids``, ``trainer_state``, ``log_extra``, ...)
are accepted and ignored.

:func:`math_reward` is the generic one; a benchmark adds its own through ``Benchmark.rewards()`` (importable
from :mod:`reasoneval.rewards` by name) and scores its rows with :func:`score_jobs`: math rows on math-verify's
sandbox, its own rows on whatever it starts (:data:`Start`), all under one call's time budget.

Time: each verdict runs in a sandbox worker killed after its timeout (math 5 s). Every completion gets a time
budget of its own first, a *first look* of up to ``FIRST_LOOK_S`` (2 s) that no other completion can shorten
(no deadline is shared in it): every answer that is not a bomb is decided then, so what the other completions
hold never changes its reward. Only the completions that used up their first look are looked at again, with
their whole timeout, while the call's ``BATCH_BUDGET_S`` (60 s) lasts; those still undecided then score 0
(reason ``budget``). A call thus takes at most about ``ceil(n / workers) x FIRST_LOOK_S`` or the batch budget,
whichever is longer. Answers denoting numbers too large to compute (``9^{9^{9}}``) are refused before they
reach a worker (:mod:`.magnitude`).

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

from . import math_check
from .extract import completion_text

MATH_WORKERS = 4  # threads waiting on the math-verify sandbox (its own pool bounds the processes)
BATCH_BUDGET_S = 60.0  # second looks end then: those still undecided score 0 (each also has its own timeout)
FIRST_LOOK_S = 2.0  # every completion's own first look (a right answer is decided in milliseconds)
FIRST_LOOK = "first-look"  # the reason of a verdict cut short by its first look (it gets a second one)


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


#: a benchmark's own verdict: started with ``(deadline, cap)`` -- the call's deadline (a ``time.monotonic()``
#: limit, None in the first look) and the most seconds this look may run (None: the verdict's own timeout) --
#: it returns the function that waits for its :class:`RowReward` (which must honour both itself). A verdict cut
#: short by ``cap`` before its own timeout gives the reason :data:`FIRST_LOOK`.
Start = Callable[[float | None, float | None], Callable[[], RowReward]]


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


def score_jobs(jobs: Sequence[MathJob | Start], math_timeout: float = math_check.DEFAULT_TIMEOUT_S,
               budget_s: float = BATCH_BUDGET_S, first_look_s: float = FIRST_LOOK_S) -> list[RowReward]:
    """Math verdicts on math-verify's sandbox and the other jobs as they start themselves: first every job's own
    first look (at most ``first_look_s``, no deadline shared), then a second look with the whole timeout for
    those it cut short, while the call's budget lasts (still undecided then: 0, reason ``budget``)."""
    deadline = time.monotonic() + budget_s
    threads = ThreadPoolExecutor(MATH_WORKERS)
    try:
        out = _look(jobs, threads, math_timeout, first_look_s, None)
        again = [i for i, r in enumerate(out) if r.reason == FIRST_LOOK]
        if again:
            for i, r in zip(again, _look([jobs[i] for i in again], threads, math_timeout, None, deadline),
                            strict=True):
                out[i] = r
        return out
    finally:  # queued math comparisons are dropped; one already running ends within math_timeout
        threads.shutdown(wait=False, cancel_futures=True)


def _look(jobs: Sequence[MathJob | Start], threads: ThreadPoolExecutor, math_timeout: float, cap: float | None,
          deadline: float | None) -> list[RowReward]:
    """One look at every job: at most ``cap`` seconds each (None: its own timeout), none after ``deadline``."""
    math_cap = math_timeout if cap is None else min(cap, math_timeout)
    pending: list[Future[Any] | Callable[[], RowReward]] = []
    for j in jobs:
        if isinstance(j, MathJob):
            pending.append(threads.submit(math_check.math_verdict, j.gold, j.text, math_cap))
        else:
            pending.append(j(deadline, cap))
    out = []
    for j, fut in zip(jobs, pending, strict=True):
        if not isinstance(fut, Future):
            out.append(fut())
            continue
        kind = j.kind if isinstance(j, MathJob) else ""
        try:
            m = fut.result(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            out.append(RowReward(0.0, kind, "budget"))
            continue
        cut = m.reason == "timeout" and math_cap < math_timeout
        out.append(RowReward(m.reward, kind, FIRST_LOOK if cut else m.reason))
    return out


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
    jobs = [MathJob(completion_text(c), math_check.gold_of(gold[i], answer[i])) for i, c in enumerate(completions)]
    return [r.reward for r in score_jobs(jobs)]
