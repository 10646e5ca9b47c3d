"""Benchmark: verdicts per second of the GSM8K/MATH scorer (``scoring/math_answer.py``), on its two paths.

    python bench/transfer_scoring.py [--n 10000] [--m 50]

* quick rule: the boxed answer is a plain number (GSM8K's usual case, ``2,500`` against ``2500``), decided in
  the calling thread without SymPy; this is what the runner does on its event loop (``score_now``);
* math-verify: a symbolic comparison (``\\frac{i}{2}`` against a decimal) in the time-bounded worker pool, one
  at a time (the pool is started before the clock).

Each answer text carries ~3,200 characters of reasoning before the box, as a 1,024-token answer would.
"""

from __future__ import annotations

import argparse
import time

from reasoneval.scoring.math_answer import math_verdict, quick_verdict

TEXT = "Step by step... " * 200 + "Therefore, the final answer is: $\\boxed{%s}$. I hope it is correct"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000, help="quick-rule verdicts")
    ap.add_argument("--m", type=int, default=50, help="math-verify verdicts")
    a = ap.parse_args()
    texts = [TEXT % f"{i:,}" for i in range(a.n)]
    t = time.perf_counter()
    right = sum(1 for i, x in enumerate(texts) if (v := quick_verdict(str(i), x)) is not None and v.correct)
    dt = time.perf_counter() - t
    print(f"quick rule:  {a.n:>6} verdicts ({right} correct) in {dt:6.2f} s = {a.n / dt:>9,.0f}/s")
    math_verdict("\\frac{1}{2}", TEXT % "0.5")  # starts the worker pool
    t = time.perf_counter()
    right = sum(1 for i in range(a.m) if math_verdict(f"\\frac{{{i}}}{{2}}", TEXT % f"{i / 2}").correct)
    dt = time.perf_counter() - t
    print(f"math-verify: {a.m:>6} verdicts ({right} correct) in {dt:6.2f} s = {a.m / dt:>9,.1f}/s")


if __name__ == "__main__":
    main()
