"""How fast this (shared, noisy) machine is right now, printed beside every figure of a bench script."""

from __future__ import annotations

import os
import time


def speed_probe() -> str:
    """Seconds for 10 million pure-Python additions (best of 3) and the load average: compare figures only
    when these are alike (a quiet 2-core machine of this kind: ~0.5-0.6 s)."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        x = 0
        for i in range(10_000_000):
            x += i
        best = min(best, time.perf_counter() - t)
    return f"machine speed probe: 10M Python additions in {best:.2f} s (best of 3), load average {os.getloadavg()[0]:.2f}"
