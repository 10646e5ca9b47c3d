"""Benchmark: one FineReason training mix at the paper's size, as ``finereason export`` builds it.

    python bench/finereason_mix_sizes.py [--total 10000] [--math-ratio 0.8] [--unsolvable-ratio 0.5] [--math FILE]

Times the two phases — drawing the fresh puzzle states (released instances and repeats dropped, topped up when
a label falls short) and building the mix (prompts, target states) — and prints the pool's size per puzzle, how
many draws it took, the mix's counts and the peak memory. Without ``--math`` a MetaMathQA-style file of
``total`` rows is made up (the Hub is not reached). The defaults are the docs' example, which failed before
the pool was topped up ("need 1000 Unsolvable states, have 965").
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path

from machine import speed_probe

from reasoneval.benchmarks.finereason import export as E


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--total", type=int, default=10_000)
    ap.add_argument("--math-ratio", type=float, default=0.8)
    ap.add_argument("--unsolvable-ratio", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--math", type=Path, default=None)
    a = ap.parse_args()
    print(speed_probe())
    math_file = a.math
    if math_file is None:
        math_file = Path(tempfile.mkdtemp()) / "math.jsonl"
        math_file.write_text("".join(json.dumps({"query": f"What is {i} plus {i + 7}? (#{i})",
                                                 "response": f"{i} + {i + 7} = {2 * i + 7}.\nThe answer is: {2 * i + 7}"})
                                     + "\n" for i in range(a.total)), encoding="utf-8")
    cfg = E.MixConfig(a.total, a.math_ratio, a.unsolvable_ratio, 0.5, a.seed)
    draws: list[int] = []
    real = E.generate_states

    def counted(*args: object, **kw: object) -> list[dict[str, object]]:
        draws.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    E.generate_states = counted  # type: ignore[assignment]
    t0 = time.perf_counter()
    pool = E.training_states(cfg)
    t1 = time.perf_counter()
    mix = E.build_mix(E.load_math(math_file), pool, cfg)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    need = E.label_needs(cfg)
    print(f"mix: total {a.total}, r_m {a.math_ratio:g}, r_u {a.unsolvable_ratio:g} -> need {need}")
    print(f"states: {sum(map(len, pool.values()))} kept ({', '.join(f'{p} {len(v)}' for p, v in pool.items())}) "
          f"in {t1 - t0:.1f} s, {len(draws)} generator calls ({len(draws) // len(pool)} round(s))")
    print(f"mix built in {t2 - t1:.1f} s: {dict(Counter(m['task'] for m in mix))}")
    print(f"total {t2 - t0:.1f} s, peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
