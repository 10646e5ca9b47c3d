"""Rewards for RL training, in the conventions trainers call.

* TRL: :func:`math_reward`, ``f(prompts, completions, **columns) -> list[float]``, and every benchmark's own
  reward functions by name (``Benchmark.rewards()``; ``from reasoneval.rewards import <name>``);
* verl: :func:`compute_score` ``(data_source, solution_str, ground_truth, extra_info=None) -> float`` and
  :func:`verl_row` (a benchmark's rows go to its own verl scorer by their ``data_source``).

Math rows are judged by math-verify, a benchmark's rows by its own code; all in time-bounded sandbox workers,
and nothing a model writes is executed. The workers are clean interpreters of our own module
(``scoring/sandbox_worker.py``), never the caller's ``__main__``: no ``if __name__ == "__main__":`` guard is needed.
"""

from typing import Any

from .functions import RowReward, math_reward
from .plugins import by_name
from .verl import compute_score, verl_row

__all__ = ["RowReward", "compute_score", "math_reward", "verl_row"]


def __getattr__(name: str) -> Any:
    """A benchmark's own reward function (``Benchmark.rewards()``), e.g. ``reasoneval.rewards.<name>``."""
    fn = by_name(name) if not name.startswith("_") else None
    if fn is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (nor does any benchmark's rewards())")
    return fn
