"""treecount: the bitmask full-tree walker and the subtree-memo counter agree exactly with tree.build_tree."""

from __future__ import annotations

import random
import signal
import threading
from collections import Counter
from typing import Any

import pytest

from reasoneval.benchmarks.finereason.engines import engine_for_record
from reasoneval.benchmarks.finereason.engines.graphcoloring import GraphColoringEngine, random_graph
from reasoneval.benchmarks.finereason.engines.sudoku import SudokuEngine
from reasoneval.benchmarks.finereason.tree import build_tree
from reasoneval.benchmarks.finereason.treecount import (
    _MAX_LOOPS,
    TreeStats,
    count_tree,
    enumerate_tree,
    graphcoloring_problem,
    problem_for_engine,
    sudoku_problem,
    tree_stats,
)

SOLVED = [[4, 1, 6, 9, 7, 2, 8, 3, 5], [7, 2, 3, 1, 8, 5, 6, 9, 4], [5, 9, 8, 3, 4, 6, 2, 1, 7],
          [6, 3, 5, 4, 1, 9, 7, 2, 8], [1, 8, 9, 2, 6, 7, 4, 5, 3], [2, 4, 7, 5, 3, 8, 1, 6, 9],
          [8, 7, 2, 6, 9, 3, 5, 4, 1], [3, 6, 4, 8, 5, 1, 9, 7, 2], [9, 5, 1, 7, 2, 4, 3, 8, 6]]


def _reference(engine: Any) -> tuple[int, int, int, int, bool, list[int]]:
    tree = build_tree(engine)
    hist = Counter(tree.depth)
    return (len(tree), sum(tree.solvable), sum(tree.goal), tree.max_depth, tree.solvable[0],
            [hist[d] for d in range(tree.max_depth + 1)])


def _summary(s: TreeStats) -> tuple[int, int, int, int, bool]:
    return (s.nodes, s.solvable, s.goals, s.max_depth, s.root_solvable)


def _check(engine: Any) -> None:
    ref = _reference(engine)
    p = problem_for_engine(engine)
    for walker, leaf_bulk in (("compiled", False), ("compiled", True), ("plain", False), ("auto", False)):
        got = enumerate_tree(p, leaf_bulk=leaf_bulk, walker=walker)
        assert got.complete
        assert _summary(got) == ref[:5]
        assert got.per_depth[:ref[3] + 1] == ref[5] and not any(got.per_depth[ref[3] + 1:])
        assert got.unsolvable == ref[0] - ref[1]
    assert _summary(count_tree(p)) == ref[:5]


def test_released_sudoku_trees_match_build_tree(questions: dict[str, list[dict[str, Any]]]) -> None:
    qs = questions["sudoku"]
    assert len(qs) == 51
    sizes = set()
    for q in qs:
        eng = engine_for_record("sudoku", q)
        _check(eng)
        sizes.add(problem_for_engine(eng).size)
    assert max(sizes) > 2 * _MAX_LOOPS  # the walker is split over several generated functions


def test_graph_with_110633_nodes_matches_build_tree(questions: dict[str, list[dict[str, Any]]]) -> None:
    q = questions["graphcoloring"][18]
    eng = engine_for_record("graphcoloring", q)
    s = tree_stats(eng)
    assert (s.nodes, s.solvable, s.unsolvable, s.max_depth) == (110_633, 96_209, 14_424, 16)
    assert s.method == "enumerate/compiled"  # auto: more than PLAIN_BUDGET nodes
    _check(eng)


def test_random_small_graphs_match_build_tree() -> None:
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 9)
        g = random_graph(n, rng.uniform(0.2, 0.9), rng)
        k = rng.randint(1, 4)  # includes k below the chromatic number: no goal at all
        _check(GraphColoringEngine(g, k))


def test_small_sudokus_match_build_tree() -> None:
    rng = random.Random(3)
    cells = [(r, c) for r in range(9) for c in range(9)]
    for n_blank in (0, 1, 20, 35, 45, 50):
        g = [row[:] for row in SOLVED]
        for r, c in rng.sample(cells, n_blank):
            g[r][c] = 0
        _check(SudokuEngine(g))
    # rule-consistent but unsolvable: the root is a dead end somewhere below
    g = [row[:] for row in SOLVED]
    for r, c in rng.sample(cells, 30):
        g[r][c] = 0
    g[0][0], g[0][1] = 0, 0
    first_two = {SOLVED[0][0], SOLVED[0][1]}
    g[1] = [0 if v in first_two else v for v in g[1]]
    eng = SudokuEngine(g)
    _check(eng)


def test_memo_counter_matches_walk_on_released_graphs(questions: dict[str, list[dict[str, Any]]]) -> None:
    for i in (5, 16, 24, 40):  # 0.6M-3M nodes each
        q = questions["graphcoloring"][i]["inputs"]
        p = graphcoloring_problem(q["graph"], q["chromatic_number"])
        walk = enumerate_tree(p, leaf_bulk=True)
        assert _summary(count_tree(p)) == _summary(walk)


def test_time_limit_stops_and_restores_the_alarm(questions: dict[str, list[dict[str, Any]]]) -> None:
    q = questions["graphcoloring"][4]["inputs"]  # ~9.2e14 nodes
    p = graphcoloring_problem(q["graph"], q["chromatic_number"])
    before = signal.getsignal(signal.SIGALRM)
    s = enumerate_tree(p, time_limit=0.05)
    assert not s.complete and 0 < s.nodes < count_tree(p).nodes
    assert s.seconds < 1.0
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    small = sudoku_problem(SOLVED)
    assert enumerate_tree(small, time_limit=5).complete


def test_time_limit_needs_main_thread() -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            enumerate_tree(sudoku_problem(SOLVED), time_limit=1)
        except ValueError as exc:
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert len(errors) == 1


def test_auto_walker_switches_after_the_plain_budget(questions: dict[str, list[dict[str, Any]]]) -> None:
    p = problem_for_engine(engine_for_record("sudoku", questions["sudoku"][0]))
    assert enumerate_tree(p).method == "enumerate/plain"
    with pytest.raises(ValueError):
        enumerate_tree(p, walker="fast")


def test_problem_for_engine_rejects_other_puzzles() -> None:
    class Other:
        puzzle = "game24"

    with pytest.raises(ValueError):
        problem_for_engine(Other())


def test_walker_generation_refuses_non_int_data() -> None:
    import pytest

    from reasoneval.benchmarks.finereason.treecount import OrderedColoring, enumerate_tree

    bad = OrderedColoring(base=(1, "__import__('os')"), lower=((), (0,)), colors=2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="plain ints"):
        enumerate_tree(bad, walker="compiled")
