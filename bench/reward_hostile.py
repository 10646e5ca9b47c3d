"""Hostile completions in one reward call: 38 ``\\boxed{9^{9^{9}}}`` among 256 math completions.

Prints the call's wall time and how many of the 218 correct completions got 1.0, with the text check of
``rewards/magnitude.py`` on (the default) and off (bombs reach the sandbox: only the per-completion first look
protects the correct ones).

    python bench/reward_hostile.py
"""

from __future__ import annotations

import time

from reasoneval.rewards import functions as F
from reasoneval.rewards import math_check

BOMB = "The answer is \\boxed{9^{9^{9}}}"


def main() -> None:
    hostile = set(range(0, 256, 6)[:38])
    jobs = [F.MathJob(BOMB, "1") if i in hostile else F.MathJob(f"So it is {i}.\nThe answer is: {i}", str(i))
            for i in range(256)]
    F.score_jobs([F.MathJob("1", "1")])  # start the workers before the clock
    for label, check in (("text check on", math_check.too_large), ("text check off", lambda _s: False)):
        math_check.too_large = check  # type: ignore[assignment]
        t = time.monotonic()
        got = F.score_jobs(jobs)
        took = time.monotonic() - t
        right = sum(1 for i, r in enumerate(got) if i not in hostile and r.reward == 1.0)
        print(f"{label}: {took:.1f} s, {right}/218 correct completions rewarded 1.0, "
              f"bombs: {sorted({r.reason for i, r in enumerate(got) if i in hostile})}")


if __name__ == "__main__":
    main()
