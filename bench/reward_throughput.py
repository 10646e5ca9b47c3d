"""Benchmark: reward throughput for one GRPO batch of 512 completions, against math-verify called directly.

    python bench/reward_throughput.py [--n 512] [--seed 0]

Three batches of the FineReason training mix (``finereason export`` rows, freshly generated puzzle states):
``puzzle`` (r_m 0: state checking and state transition), ``math`` (r_m 1) and ``mixed`` (r_m 0.5), half of
the completions right and half wrong, each ~1,000 characters of reasoning before the answer. Each batch is
scored by ``finereason_reward`` twice: ``first`` is its first call (for the puzzle and math batches, the one
that starts that pool's clean worker interpreters, SymPy/math-verify imports included; the mixed batch finds
both pools running), ``warm`` a second call with other completions.
``math_reward`` is timed on the math batch too.

Baseline: math-verify called directly in this process, one completion after another
(``verify(parse(gold), parse(completion))``, math-verify's defaults: its ``signal.alarm`` timeouts, main
thread only, and its ``parse_expr`` path that the rewards never use), over the math batch's completions.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from machine import speed_probe

from reasoneval.benchmarks.finereason.export import MixConfig, build_mix, training_states

REASONING = "Let me work through this carefully, checking each step against the rules. " * 13


def math_samples(n: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b = rng.randint(2, 90), rng.randint(2, 90)
        if i % 3 == 0:
            q, ans = f"What is {a} + {b}?", f"{a} + {b} = {a + b}.\nThe answer is: {a + b}"
        elif i % 3 == 1:
            q, ans = f"Write {a}/{b + a} as a fraction.", f"It is $\\boxed{{\\frac{{{a}}}{{{b + a}}}}}$."
        else:
            q, ans = f"What is {a} divided by 8?", f"{a} / 8 = {a / 8:g}.\n#### {a / 8:g}"
        out.append({"question": q, "answer": ans})
    return out


def completion(row: dict[str, Any], right: bool) -> str:
    if row["task"] == "math":
        gold = row["gold"]
        if not right:
            gold = "\\frac{1}{1000}" if "frac" in gold else f"{float(gold) + 1:g}"
        return f"<think>{REASONING}</think>\nSo the result is {gold}.\nThe answer is: {gold}"
    if right:
        return f"<think>{REASONING}</think>\n{row['answer']}"
    if row["task"] == "state_checking":
        return "Answer: (B)" if "(A)" in row["answer"] else "Answer: (A)"
    return "Next state: []"


def batch(n: int, math_ratio: float, seed: int) -> list[dict[str, Any]]:
    cfg = MixConfig(n, math_ratio, 0.5, 0.5, seed)
    return build_mix(math_samples(n, seed), training_states(cfg), cfg)


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(speed_probe())
    t = time.perf_counter()
    batches = {name: batch(a.n, r, a.seed) for name, r in (("puzzle", 0.0), ("math", 1.0), ("mixed", 0.5))}
    print(f"made 3 batches of {a.n} rows in {time.perf_counter() - t:.1f} s (puzzle states generated, not timed)")

    from reasoneval.rewards import finereason_reward, math_reward

    print(f"{'batch':<8}{'call':<22}{'seconds':>9}{'completions/s':>15}  right/wrong rewards")
    for name, rows in batches.items():
        cols = {k: [r[k] for r in rows] for k in rows[0] if k != "prompt"}
        for label, right in (("finereason first", True), ("finereason warm", False)):
            comps = [completion(r, right if i % 2 == 0 else not right) for i, r in enumerate(rows)]
            expect = [float(right if i % 2 == 0 else not right) for i in range(len(rows))]
            dt, got = timed(finereason_reward, completions=comps, **cols)
            ok = sum(g == e for g, e in zip(got, expect, strict=True))
            print(f"{name:<8}{label:<22}{dt:>9.2f}{len(rows) / dt:>15,.0f}  {ok}/{len(rows)} as expected")
        if name == "math":
            comps = [completion(r, i % 2 == 0) for i, r in enumerate(rows)]
            dt, got = timed(math_reward, completions=comps, gold=cols["gold"])
            ok = sum(g == float(i % 2 == 0) for i, g in enumerate(got))
            print(f"{name:<8}{'math_reward warm':<22}{dt:>9.2f}{len(rows) / dt:>15,.0f}  {ok}/{len(rows)} as expected")

    from math_verify import parse, verify

    rows = batches["math"]
    comps = [completion(r, i % 2 == 0) for i, r in enumerate(rows)]
    parse("$1$"), verify(parse("$1$"), parse("$1$"))  # imports and grammar load: not timed (as the pools' start)
    t = time.perf_counter()
    ok = sum(bool(verify(parse(f"${r['gold']}$"), parse(c))) == (i % 2 == 0) for i, (r, c) in
             enumerate(zip(rows, comps, strict=True)))
    dt = time.perf_counter() - t
    print(f"{'math':<8}{'math-verify direct':<22}{dt:>9.2f}{len(rows) / dt:>15,.0f}  {ok}/{len(rows)} as expected "
          "(in-process, no kill on hang)")


if __name__ == "__main__":
    main()
