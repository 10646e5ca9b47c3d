"""The engines against the released data: labels, tree relations, documented release defects."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from reasoneval.benchmarks.finereason.engines import PUZZLES
from reasoneval.benchmarks.finereason.engines.gridpuzzle import GridState
from reasoneval.benchmarks.finereason.generate import infer_clue_orders
from reasoneval.benchmarks.finereason.label import EngineCache, label_records, state_of
from reasoneval.benchmarks.finereason.tasks import HARDCODED_ANCESTOR_LABEL, STALE_CHILD, release_defects

#: Released states whose ``current_status`` our solver does not reproduce, with the reason. The spec
#: documents no label defect and none is found: the solver agrees on all 2,000 states.
LABEL_DEFECTS: dict[tuple[str, int], str] = {}

#: Spec section 3.1/9.3: "86/250 unsolvable Sudoku states have no valid child, and their
#: ``unsolvable_child`` field holds an unrelated stale grid". These are those 86 (0-based line indices of
#: ``sudoku_states.json``). Their labels are right; only the prompt's "explored next state" is wrong.
SUDOKU_STALE_CHILD = (
    11, 13, 15, 23, 27, 31, 37, 45, 51, 55, 57, 59, 73, 81, 93, 95, 101, 103, 107, 115, 123, 127, 133, 135, 137,
    151, 155, 157, 159, 165, 167, 187, 191, 197, 205, 213, 219, 221, 225, 229, 235, 237, 265, 267, 269, 273, 275,
    283, 285, 289, 295, 297, 301, 303, 307, 311, 313, 317, 321, 325, 333, 335, 341, 353, 369, 371, 375, 383, 395,
    399, 407, 409, 417, 423, 427, 435, 439, 451, 455, 463, 465, 467, 479, 483, 487, 489,
)

#: Spec section 9.2: ST prompts hard-code ancestor labels as Solvable; these many released states show an
#: unsolvable ancestor under that label (GC 103, G24 108, Grid 312 have an unsolvable parent).
HARDCODED_LABEL_COUNTS = {"sudoku": 0, "graphcoloring": 103, "game24": 108, "gridpuzzle": 312}


def test_all_released_labels_reproduced(states: dict[str, list[dict[str, Any]]]) -> None:
    """Our exact solver's label equals ``current_status`` for every released state (minus LABEL_DEFECTS)."""
    for puzzle in PUZZLES:
        labels = label_records(puzzle, states[puzzle])
        bad = {(puzzle, i) for i, (lab, r) in enumerate(zip(labels, states[puzzle], strict=True))
               if lab != r["outputs"]["current_status"]}
        assert bad == {k for k in LABEL_DEFECTS if k[0] == puzzle}


def test_release_counts(states: dict[str, list[dict[str, Any]]]) -> None:
    counts = {p: Counter(r["outputs"]["current_status"] for r in states[p]) for p in PUZZLES}
    assert counts["sudoku"] == {"Solvable": 250, "Unsolvable": 250}
    assert counts["graphcoloring"] == {"Solvable": 252, "Unsolvable": 248}
    assert counts["game24"] == {"Solvable": 250, "Unsolvable": 250}
    assert counts["gridpuzzle"] == {"Solvable": 94, "Unsolvable": 406}


@pytest.mark.parametrize("puzzle", ["sudoku", "graphcoloring", "game24"])
def test_release_relations(puzzle: str, states: dict[str, list[dict[str, Any]]]) -> None:
    """current is a DFS child of parent (first empty cell / lowest uncoloured vertex), parent a child of the
    grandparent, and unsolvable_child a child of current - except the documented stale Sudoku children."""
    cache = EngineCache(puzzle)
    stale = []
    for i, rec in enumerate(states[puzzle]):
        eng = cache.get(rec)
        inp = rec["inputs"]

        def kids(s: Any, eng: Any = eng) -> list[Any]:
            return [eng.key(eng.apply(s, m)) for m in eng.moves(s)]

        cur, par = eng.from_json(inp["current"]), eng.from_json(inp["parent"])
        assert eng.is_valid(cur) and eng.is_valid(par)
        assert eng.key(cur) in kids(par), i
        if inp["grandparent"] is not None:
            assert eng.key(par) in kids(eng.from_json(inp["grandparent"])), i
        else:
            assert puzzle == "game24" and eng.key(par) == eng.key(eng.root())
        child = eng.from_json(inp["unsolvable_child"])
        assert not eng.is_solvable(child)
        if eng.key(child) not in kids(cur):
            stale.append(i)
            assert kids(cur) == []  # a dead end: there was no child to show
    assert tuple(stale) == (SUDOKU_STALE_CHILD if puzzle == "sudoku" else ())


def test_release_defect_detector(states: dict[str, list[dict[str, Any]]]) -> None:
    for puzzle in PUZZLES:
        found = [release_defects(puzzle, r) for r in states[puzzle]]
        stale = tuple(i for i, d in enumerate(found) if STALE_CHILD in d)
        assert stale == (SUDOKU_STALE_CHILD if puzzle == "sudoku" else ())
        parent_unsolvable = sum(1 for r in states[puzzle] if _parent_unsolvable(puzzle, r))
        assert parent_unsolvable == HARDCODED_LABEL_COUNTS[puzzle]
        assert sum(HARDCODED_ANCESTOR_LABEL in d for d in found) >= parent_unsolvable


def _parent_unsolvable(puzzle: str, rec: dict[str, Any]) -> bool:
    from reasoneval.benchmarks.finereason.tasks import engine_for

    eng = engine_for(puzzle, rec)
    inp = rec["inputs"]
    if puzzle == "gridpuzzle":
        return not eng.is_solvable(GridState(eng.p.coerce(inp["initial_to_current"][-2])))
    return not eng.is_solvable(eng.from_json(inp["parent"]))


def test_grid_release_paths(states: dict[str, list[dict[str, Any]]]) -> None:
    """Every released Grid step S(j) -> S(j+1) and S(m) -> unsolvable child is one application of the named
    clue under the release generator's semantics; with our canonical application (all mentioned values
    placed, distinct rows) 1,938 of the 2,068 steps are reproduced (the rest drop an overwritten value or
    fill a forced last cell, see ``GridPuzzle.release_variants``)."""
    cache = EngineCache("gridpuzzle")
    canonical = total = 0
    for rec in states["gridpuzzle"]:
        eng = cache.get(rec)
        inp = rec["inputs"]
        path = [eng.p.coerce(t) for t in inp["initial_to_current"]] + [eng.p.coerce(inp["unsolvable_child"])]
        clues = list(inp["applied_clues"]) + [inp["clue_applied_to_unsolvable_child"]]
        assert path[-2] == eng.p.coerce(inp["current"]) and path[0] == eng.p.initial
        for k in range(len(path) - 1):
            total += 1
            assert path[k + 1] in eng.p.release_variants(path[k], clues[k])
            canonical += path[k + 1] in eng.p.apply_clue(path[k], clues[k])
        assert not eng.table_solvable(path[-1])
        cur = state_of(eng, rec)
        assert eng.is_solvable(cur) == (rec["outputs"]["current_status"] == "Solvable")
    assert (canonical, total) == (1938, 2068)


def test_grid_release_clue_order_is_fixed(states: dict[str, list[dict[str, Any]]]) -> None:
    orders = infer_clue_orders(states["gridpuzzle"])
    assert len(orders) == 46


def test_grid_gold_solution_is_the_unique_solution(questions: dict[str, list[dict[str, Any]]]) -> None:
    """Solving from the clues alone (categories text, no gold) finds exactly the released solution."""
    from reasoneval.benchmarks.finereason.engines.gridpuzzle import GridPuzzle

    for q in questions["gridpuzzle"]:
        p = GridPuzzle.from_inputs(q["inputs"])
        sols = p.completions(p.initial, 5)
        assert sols == [p.coerce(q["outputs"]["solution"])]
