"""Soak: 1,250 items against the fake server with every fault kind at 20%, vs the fault-free run.

    python bench/soak.py [--n 1250] [--rate 0.2] [--concurrency 32] [--stream]

Prints both runs' wall time and the audit (lost / duplicated / mis-scored must all be 0). Every 10th item is
a SymPy-scored KOR-Bench Operation item (the harness: ``reasoneval.testing.soak``; the scoring:
``reasoneval.benchmarks.korbench.soak_scoring``); the line gives the slowest SymPy verdict against the soak's
per-verdict budget (``reasoneval.testing.soak.SOAK_VERDICT_BUDGET_S``).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from reasoneval.benchmarks.korbench.soak_scoring import OPERATION
from reasoneval.testing.soak import soak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1250)
    ap.add_argument("--rate", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--stream", action="store_true", help="ask for event streams (default: plain bodies)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = soak(Path(tmp), OPERATION, a.n, 0.0, a.concurrency, stream=a.stream)
        print(f"fault-free: {base.line()}")
        hot = soak(Path(tmp), OPERATION, a.n, a.rate, a.concurrency, stream=a.stream)
        print(f"faults {a.rate:.0%}: {hot.line()}")
        print(f"  server: {dict(sorted(hot.server.items()))}")
        print(f"  requests: {hot.requests}")
        print(f"  SymPy verdict methods: {dict(sorted((hot.methods or {}).items()))}")
        for key, why in sorted((hot.misscored_items or {}).items()):
            print(f"  mis-scored {key}: {why}")
        print(f"  slowdown: {hot.seconds / base.seconds:.2f}x the fault-free time")


if __name__ == "__main__":
    main()
