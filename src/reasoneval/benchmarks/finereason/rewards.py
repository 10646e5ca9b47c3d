"""Rewards for RL training on FineReason's mix (paper section 5), in the conventions trainers call.

* TRL: :func:`finereason_reward`, ``f(prompts, completions, **columns) -> list[float]`` (also importable as
  ``reasoneval.rewards.finereason_reward``, through ``FineReason.rewards()``);
* verl: ``reasoneval.rewards.compute_score`` scores rows whose ``data_source`` is ``finereason`` with
  :func:`verl_score`; ``reasoneval.rewards.verl_row`` turns an export line into verl's schema with
  :func:`verl_row`.

The columns are those ``reasoneval finereason export`` writes (``source``, ``task``, ``puzzle``, ``state``,
``gold``, ``answer``, ...). Puzzle rows are judged by the puzzle engines (:mod:`.reward_sandbox`), math rows by
math-verify; both in time-bounded sandbox workers, and nothing a model writes is executed. When the trainer
passes ``log_metric``, the mean reward of each kind of row in the batch is logged as ``finereason/<kind>``
(``math``, ``state_checking``, ``state_transition``). The workers are clean interpreters of our own module (never
the caller's ``__main__``): a script, ``python -`` or a notebook calls these as it likes.

    from trl import GRPOTrainer
    from reasoneval.rewards import finereason_reward
    trainer = GRPOTrainer(model, reward_funcs=finereason_reward, train_dataset=load_dataset("json", ...))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...rewards import math_check as math_rewards
from ...rewards.extract import completion_text
from ...rewards.functions import (
    BATCH_BUDGET_S,
    FIRST_LOOK,
    FIRST_LOOK_S,
    MathJob,
    RowReward,
    Start,
    column,
    log_means,
    score_jobs,
)
from . import reward_sandbox

SOURCE = "finereason"  # the ``source`` column of puzzle rows, verl's ``data_source``


def _kind(source: Any, task: Any, i: int) -> str:
    if source == "math" or task == "math":
        return "math"
    if task in reward_sandbox.TASKS:
        return str(task)
    raise ValueError(f"row {i}: no reward for source={source!r} task={task!r} (expected task "
                     f"{', '.join(reward_sandbox.TASKS)} or math; "
                     f"are these rows of `reasoneval finereason export`?)")


def _puzzle_job(puzzle: str, task: str, record: dict[str, Any], text: str, timeout: float) -> Start:
    def start(deadline: float | None, cap: float | None) -> Callable[[], RowReward]:
        limit = timeout if cap is None else min(cap, timeout)
        future = reward_sandbox.submit(puzzle, task, record, text, limit, deadline=deadline)

        def finish() -> RowReward:
            puzzle_result = reward_sandbox.result(future)
            # the first look ended it: it gets a second one
            cut = puzzle_result.reason == "timeout" and limit < timeout
            return RowReward(puzzle_result.reward, task, FIRST_LOOK if cut else puzzle_result.reason)

        return finish

    return start


def score_rows(completions: Sequence[Any], columns: dict[str, Any], *,
               puzzle_timeout: float = reward_sandbox.DEFAULT_TIMEOUT_S,
               math_timeout: float = math_rewards.DEFAULT_TIMEOUT_S, budget_s: float = BATCH_BUDGET_S,
               first_look_s: float = FIRST_LOOK_S) -> list[RowReward]:
    """One :class:`RowReward` per completion of a FineReason mix (every row is checked before any runs)."""
    n = len(completions)
    source, task, puzzle, state = (column(columns, k, n) for k in ("source", "task", "puzzle", "state"))
    gold, answer = column(columns, "gold", n), column(columns, "answer", n)
    jobs: list[MathJob | Start] = []
    for i, completion in enumerate(completions):
        kind = _kind(source[i], task[i], i)
        if kind == "math":
            jobs.append(MathJob(completion_text(completion), math_rewards.gold_of(gold[i], answer[i]), kind))
            continue
        if not isinstance(puzzle[i], str):
            raise ValueError(f"row {i}: a {kind} row needs its 'puzzle' column")
        record = reward_sandbox.parse_state(state[i], f"row {i}")
        jobs.append(_puzzle_job(puzzle[i], kind, record, completion_text(completion), puzzle_timeout))
    return score_jobs(jobs, math_timeout, budget_s, first_look_s)


def finereason_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                      **columns: Any) -> list[float]:
    """1.0 / 0.0 per completion of a FineReason training mix: puzzle rows by the engines (state checking,
    state transition), math rows by math-verify against the row's gold final answer."""
    if completions is None:
        raise ValueError("finereason_reward needs completions")
    rows = score_rows(completions, columns)
    log_means(rows, columns.get("log_metric"), SOURCE)
    return [row.reward for row in rows]


def verl_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
    """verl's ``compute_score`` for a puzzle row: ``ground_truth`` is JSON ``{"puzzle", "task", "state"}``."""
    truth = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
    if (not isinstance(truth, dict) or truth.get("task") not in reward_sandbox.TASKS
            or not isinstance(truth.get("puzzle"), str)):
        raise ValueError("finereason ground_truth must be {'puzzle', 'task', 'state'} with task in "
                         f"{reward_sandbox.TASKS}")
    record = reward_sandbox.parse_state(truth.get("state"), "ground_truth")
    future = reward_sandbox.submit(truth["puzzle"], truth["task"], record, str(solution_str))
    return reward_sandbox.result(future).reward


def verl_row(row: dict[str, Any], index: int, split: str = "train") -> dict[str, Any]:
    """One ``finereason export`` line in verl's RL parquet schema: puzzle rows ``data_source = "finereason"``
    with ``ground_truth`` JSON ``{"puzzle", "task", "state"}``; math rows ``data_source = "math"`` with the gold
    final answer."""
    if row.get("source") == "math" or row.get("task") == "math":
        source, ability = "math", "math"
        truth: Any = math_rewards.gold_of(row.get("gold"), row.get("answer"))
    else:
        source, ability = SOURCE, "puzzle"
        truth = json.dumps({"puzzle": row.get("puzzle"), "task": row.get("task"), "state": row.get("state")},
                           ensure_ascii=False)
    return {"data_source": source, "prompt": row["prompt"], "ability": ability,
            "reward_model": {"style": "rule", "ground_truth": truth},
            "extra_info": {"split": split, "index": index, "task": row.get("task"), "puzzle": row.get("puzzle"),
                           "answer": row.get("answer")}}


REWARDS: Mapping[str, Callable[..., Any]] = {"finereason_reward": finereason_reward,
                                            "verl.compute_score": verl_score, "verl.verl_row": verl_row}
