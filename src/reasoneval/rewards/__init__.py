"""Rewards for RL training on FineReason's mix (paper section 5), in the conventions trainers call.

* TRL: :func:`finereason_reward` and :func:`math_reward`, ``f(prompts, completions, **columns) -> list[float]``;
* verl: :func:`compute_score` ``(data_source, solution_str, ground_truth, extra_info=None) -> float``.

Puzzle rows are judged by the puzzle engines, math rows by math-verify; both in time-bounded sandbox workers,
and nothing a model writes is executed. The workers are forked from a fork server, so a training script keeps
its top-level work under ``if __name__ == "__main__":`` (as with any multiprocessing start method but fork).
"""

from .functions import RowReward, finereason_reward, math_reward, score_rows
from .verl import compute_score, verl_row

__all__ = ["RowReward", "compute_score", "finereason_reward", "math_reward", "score_rows", "verl_row"]
