"""FineReason speed: labelling throughput, state-set generation, full DFS trees.

    python bench/finereason_speed.py [--time-limit SECONDS] [--skip-trees | --trees-only]

Prints states labelled per second per puzzle (all 2,000 released states, fresh engines), the time to generate
a 500-state Sudoku set, and for every released Sudoku and Graph Coloring instance its full DFS tree: the exact
node / solvable / unsolvable counts and max depth (treecount.count_tree, subtree memoisation) and the time to
walk the whole tree node by node in the release's move order with post-order solvable labels
(treecount.enumerate_tree; checked equal to the memo counts), plus tree.build_tree's time for Sudoku.
Graph Coloring trees hold up to ~1e15 nodes (1.6e15 in all), far beyond any node-by-node walk: with
``--time-limit`` a walk stops after that many seconds and the bench prints the nodes visited, the rate and the
projected time of the full walk. Without it every walk runs to the end (years for most graphs).
Targets: all 2,000 labels < 2 s; 500 Sudoku states < 30 s.
"""
from __future__ import annotations

import argparse
import time

from reasoneval.benchmarks.finereason.data import load_questions, load_states
from reasoneval.benchmarks.finereason.engines import PUZZLES, engine_for_record
from reasoneval.benchmarks.finereason.engines import gridpuzzle as gp
from reasoneval.benchmarks.finereason.generate import generate_states
from reasoneval.benchmarks.finereason.label import label_records
from reasoneval.benchmarks.finereason.tree import build_tree
from reasoneval.benchmarks.finereason.treecount import count_tree, enumerate_tree, problem_for_engine


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


def _dur(sec: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if sec >= 2 * size:
            return f"{sec / size:,.1f} {unit}"
    return f"{sec:,.1f} s"


def _secs(sec: float) -> str:
    return f"{sec:.3f} s" if sec >= 1 else f"{sec * 1000:.3f} ms"


def bench_trees(puzzle: str, time_limit: float | None) -> None:
    """Full DFS tree of every released instance, walked node by node (treecount.enumerate_tree: every node
    visited in the release's move order and labelled in post-order) and counted exactly by subtree memoisation
    (treecount.count_tree); for Sudoku also tree.build_tree (node objects)."""
    limit = f", walk limit {time_limit:g} s per instance" if time_limit else ", no walk time limit"
    print(f"== full DFS tree per released {puzzle} instance (walk = every node visited{limit})", flush=True)
    qs = load_questions(puzzle)
    exact_total = walked = 0  # node counts (exact integers)
    walk_time = setup_time = memo_time = build_time = projected = 0.0
    walk_max = (0.0, -1)
    done = 0
    for i, q in enumerate(qs):
        eng = engine_for_record(puzzle, q)
        prob = problem_for_engine(eng)
        exact = count_tree(prob)
        exact_total += exact.nodes
        memo_time += exact.seconds
        size = f"{prob.size:2d} empty cells" if puzzle == "sudoku" else f"n={prob.size + 1:2d} k={prob.colors:2d}"
        head = (f"  #{i:02d} {size} {exact.nodes:>22,} nodes "
                f"({exact.solvable:,} solvable / {exact.unsolvable:,} unsolvable, depth {exact.max_depth}, "
                f"memo {exact.seconds:.2f} s)")
        if puzzle == "sudoku":
            t = time.perf_counter()
            tree = build_tree(eng)
            bt = time.perf_counter() - t
            build_time += bt
            assert (len(tree), sum(tree.solvable), tree.max_depth) == (exact.nodes, exact.solvable,
                                                                     exact.max_depth)
            head += f"  build_tree {bt * 1000:.1f} ms"
        if time_limit is None and exact.nodes > 1e9:
            print(f"{head}\n       walking ~{_dur(exact.nodes / 1e7)} at 10M nodes/s ...", flush=True)
        w = enumerate_tree(prob, time_limit=time_limit)
        walked += w.nodes
        walk_time += w.seconds
        setup_time += w.setup_seconds
        walk_max = max(walk_max, (w.seconds + w.setup_seconds, i))
        if w.complete:
            done += 1
            same = (w.nodes, w.solvable, w.goals, w.max_depth) == (exact.nodes, exact.solvable, exact.goals,
                                                                  exact.max_depth)
            how = w.method.split("/")[-1] + (f" +{w.setup_seconds * 1000:.0f} ms codegen" if w.setup_seconds else "")
            tail = (f"walk {_secs(w.seconds)} ({how}) "
                    f"{w.rate / 1e6:5.1f}M nodes/s, complete, counts {'=' if same else '!= (BUG)'} memo")
        else:
            full = exact.nodes / w.rate
            projected += full
            tail = (f"walk STOPPED at {w.seconds:.1f} s: {w.nodes:,} nodes so far ({w.nodes / exact.nodes:.2e} "
                    f"of the tree), {w.rate / 1e6:.1f}M nodes/s, full walk would take ~{_dur(full)}")
        print(f"{head}\n       {tail}", flush=True)
    n = len(qs)
    print(f"  total: {n} trees, {exact_total:,} nodes (exact, memo {memo_time:.2f} s)")
    if puzzle == "sudoku":
        print(f"  build_tree (node objects) total {build_time:.3f} s")
    print(f"  walk: {done}/{n} trees complete, {walked:,} nodes visited in {walk_time:.3f} s "
          f"({walked / walk_time / 1e6:.1f}M nodes/s) + {setup_time:.3f} s set-up; slowest instance (with set-up) "
          f"#{walk_max[1]:02d} {_secs(walk_max[0])}")
    if done < n:
        print(f"  {n - done} trees not walked to the end within the limit; at the measured rates their full walks "
              f"would take ~{_dur(projected)} in all")


def bench_generate() -> None:
    print("== generating a 500-state Sudoku set (new unique-solution puzzles, 45-49 empty cells)")
    t = time.perf_counter()
    recs = generate_states("sudoku", 500, seed=0)
    dt = time.perf_counter() - t
    print(f"  {len(recs)} states in {dt:.2f} s (target < 30 s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                    help="stop each tree walk after this many seconds (default: none, walk every tree to the end; "
                         "most Graph Coloring trees then take years)")
    ap.add_argument("--skip-trees", action="store_true")
    ap.add_argument("--trees-only", action="store_true")
    args = ap.parse_args()
    if not args.trees_only:
        bench_labels()
        bench_generate()
    if not args.skip_trees:
        bench_trees("sudoku", args.time_limit)
        bench_trees("graphcoloring", args.time_limit)


if __name__ == "__main__":
    main()
