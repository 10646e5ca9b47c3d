"""verl's reward convention: ``compute_score(data_source, solution_str, ground_truth, extra_info=None)``.

Point verl's ``custom_reward_function.path`` at this module (``name: compute_score``). Rows made by
:func:`verl_row` from ``reasoneval finereason export`` lines (``export --format verl`` writes them) carry:

* puzzle rows: ``data_source = "finereason"``, ``ground_truth`` = JSON ``{"puzzle", "task", "state"}``;
* math rows: ``data_source = "math"`` (any other source name is read as math too), ``ground_truth`` = the
  gold final answer.
"""

from __future__ import annotations

import json
from typing import Any

from . import math as M
from . import puzzle as P

PUZZLE_SOURCE = "finereason"


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
    """1.0 or 0.0 for one completion (time-bounded, never executes the completion)."""
    if data_source == PUZZLE_SOURCE:
        gt = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
        if not isinstance(gt, dict) or gt.get("task") not in P.TASKS or not isinstance(gt.get("puzzle"), str):
            raise ValueError("finereason ground_truth must be {'puzzle', 'task', 'state'} "
                             f"with task in {P.TASKS}")
        rec = P.parse_state(gt.get("state"), "ground_truth")
        return P.result(P.submit(gt["puzzle"], gt["task"], rec, str(solution_str))).reward
    gold = None if ground_truth is None else str(ground_truth)
    return M.math_verdict(gold, str(solution_str)).reward


def verl_row(row: dict[str, Any], index: int, split: str = "train") -> dict[str, Any]:
    """One ``finereason export`` line in verl's RL parquet schema."""
    if row.get("source") == "math" or row.get("task") == "math":
        source, ability = "math", "math"
        truth: Any = M.gold_of(row.get("gold"), row.get("answer"))
    else:
        source, ability = PUZZLE_SOURCE, "puzzle"
        truth = json.dumps({"puzzle": row.get("puzzle"), "task": row.get("task"), "state": row.get("state")},
                           ensure_ascii=False)
    return {"data_source": source, "prompt": row["prompt"], "ability": ability,
            "reward_model": {"style": "rule", "ground_truth": truth},
            "extra_info": {"split": split, "index": index, "task": row.get("task"), "puzzle": row.get("puzzle"),
                           "answer": row.get("answer")}}
