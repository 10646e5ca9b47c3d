"""verl's reward convention: ``compute_score(data_source, solution_str, ground_truth, extra_info=None)``.

Point verl's ``custom_reward_function.path`` at this module: ``pkg://reasoneval.rewards.verl`` (verl imports it by
name), or the installed file itself (``python -c "import reasoneval.rewards.verl as v; print(v.__file__)"``),
which verl's loader runs as a file outside any package: so this module imports only absolutely (no relative
import at the entry), and ``name: compute_score``. A row whose
``data_source`` names a benchmark with its own verl scorer (``Benchmark.rewards()["verl.compute_score"]``, a
benchmark's own training rows) is scored by it; any other row has a gold final answer (``ground_truth``), decided
by math-verify. :func:`verl_row` turns an exported training row into verl's RL schema
(a benchmark's export command writes them).
"""

from __future__ import annotations

from typing import Any

from reasoneval.rewards import math_check  # absolute: verl may load this file outside its package
from reasoneval.rewards.plugins import for_source


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
    """1.0 or 0.0 for one completion (time-bounded, never executes the completion)."""
    own = for_source(str(data_source), "verl.compute_score")
    if own is not None:
        return float(own(data_source, solution_str, ground_truth, extra_info))
    gold = None if ground_truth is None else str(ground_truth)
    return math_check.math_verdict(gold, str(solution_str)).reward


def verl_row(row: dict[str, Any], index: int, split: str = "train") -> dict[str, Any]:
    """One exported training row in verl's RL parquet schema: the benchmark named by its ``source`` column
    writes it when it has a ``verl.verl_row``; else a row with a gold final answer (``gold``, or the final
    answer of ``answer``), its ``source`` as ``data_source`` and its ``task`` as ``ability``."""
    own = for_source(str(row.get("source")), "verl.verl_row")
    if own is not None:
        out: dict[str, Any] = own(row, index, split)
        return out
    return {"data_source": row.get("source"), "prompt": row["prompt"], "ability": row.get("task") or row.get("source"),
            "reward_model": {"style": "rule", "ground_truth": math_check.gold_of(row.get("gold"), row.get("answer"))},
            "extra_info": {"split": split, "index": index, "task": row.get("task"), "puzzle": row.get("puzzle"),
                           "answer": row.get("answer")}}
