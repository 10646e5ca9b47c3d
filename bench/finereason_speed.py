"""FineReason speed: labelling throughput, full-tree build times, state-set generation.

    python bench/finereason_speed.py [--gc-cap 200000] [--skip-trees]

Prints states labelled per second per puzzle (all 2,000 released states, fresh engines), the time to build
the full DFS tree of every released Sudoku and Graph Coloring instance (Graph Coloring trees are capped:
most have millions of nodes), and the time to generate a 500-state Sudoku set.
Targets: all 2,000 labels < 2 s; 500 Sudoku states < 30 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from reasoneval.benchmarks.finereason.data import load_questions, load_states
from reasoneval.benchmarks.finereason.engines import PUZZLES, engine_for_record
from reasoneval.benchmarks.finereason.engines import gridpuzzle as gp
from reasoneval.benchmarks.finereason.generate import generate_states
from reasoneval.benchmarks.finereason.label import label_records
from reasoneval.benchmarks.finereason.tree import TreeTooLarge, build_tree


def bench_labels() -> float:
    total = 0.0
    print("== labelling the released states (exact solver, cold caches)")
    for puzzle in PUZZLES:
        records = load_states(puzzle)
        gp._SOLUTIONS.clear()
        t = time.perf_counter()
        labels = label_records(puzzle, records)
        dt = time.perf_counter() - t
        total += dt
        agree = sum(lab == r["outputs"]["current_status"] for lab, r in zip(labels, records, strict=True))
        print(f"{puzzle:14s} {len(records):4d} states  {dt:6.3f} s  {len(records) / dt:9.0f} states/s  "
              f"agree {agree}/{len(records)}")
    print(f"{'total':14s} 2000 states  {total:6.3f} s  (target < 2 s)")
    return total


def bench_trees(puzzle: str, cap: int | None) -> None:
    print(f"== full DFS tree per released {puzzle} instance" + (f" (cap {cap:,} nodes)" if cap else ""))
    times, sizes, capped = [], [], 0
    for i, q in enumerate(load_questions(puzzle)):
        eng = engine_for_record(puzzle, q)
        t = time.perf_counter()
        try:
            tree = build_tree(eng, max_nodes=cap)
            n = len(tree)
            note = f"{n:>9,} nodes  solvable root={tree.solvable[0]}"
            sizes.append(n)
        except TreeTooLarge:
            capped += 1
            note = f"> {cap:,} nodes (stopped)"
        dt = time.perf_counter() - t
        times.append(dt)
        print(f"  #{i:02d} {dt * 1000:9.1f} ms  {note}")
    print(f"  total {sum(times):.2f} s, median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms" + (f", {capped} capped" if capped else "")
          + (f", complete trees {min(sizes):,}-{max(sizes):,} nodes" if sizes else ""))


def bench_generate() -> None:
    print("== generating a 500-state Sudoku set (new unique-solution puzzles, 45-49 empty cells)")
    t = time.perf_counter()
    recs = generate_states("sudoku", 500, seed=0)
    dt = time.perf_counter() - t
    print(f"  {len(recs)} states in {dt:.2f} s (target < 30 s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gc-cap", type=int, default=200_000)
    ap.add_argument("--skip-trees", action="store_true")
    args = ap.parse_args()
    bench_labels()
    if not args.skip_trees:
        bench_trees("sudoku", None)
        bench_trees("graphcoloring", args.gc_cap)
    bench_generate()


if __name__ == "__main__":
    main()
