"""Prompts (verbatim against the official rendering), state-checking extraction and metrics, the
state-transition error taxonomy on hand-made responses, and the end-to-end validators."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from rendered_index import RENDERED, RENDERED_INDEX  # noqa: E402

from reasoneval.benchmarks.finereason.engines.game24 import Game24Engine
from reasoneval.benchmarks.finereason.engines.graphcoloring import GraphColoringEngine
from reasoneval.benchmarks.finereason.prompts import PromptOptions
from reasoneval.benchmarks.finereason.tasks import (
    BACKTRACKING_FAILURE,
    INVALID_MOVE,
    MULTIPLE_MOVES,
    PARSE_ERROR,
    SIBLING,
    UNSOLVABLE_CHILD,
    build_prompt,
    error_breakdown,
    extract_expression,
    extract_sc,
    score,
    score_e2e,
    score_state_checking,
    score_state_transition,
    state_checking_metrics,
)


def test_prompts_match_the_official_rendering(states: dict[str, Any], questions: dict[str, Any]) -> None:
    blocks = re.split(r"^#################### (\S+) (\S+) label: (\S+)\n", RENDERED.read_text(), flags=re.M)
    seen = 0
    for i in range(1, len(blocks), 4):
        data, prompter, _label, body = blocks[i:i + 4]
        body = body.rstrip("\n")
        puzzle, task = prompter.split("_", 1)
        records = states[puzzle] if data.endswith("_states") else questions[puzzle]
        if (data, prompter) in RENDERED_INDEX:
            idx = RENDERED_INDEX[(data, prompter)]
        else:  # the two game24 ST blocks (depth 2 and depth 1)
            idx = 250 if "One move ago" in body else 0
        assert build_prompt(puzzle, task, records[idx]) == body, (data, prompter)
        seen += 1
    assert seen == 13


def test_prompt_literal_quirks(states: dict[str, Any]) -> None:
    st = build_prompt("sudoku", "state_transition", states["sudoku"][1])
    assert 'End your answer with "Next state: \\{grid\\}"' in st
    gc = build_prompt("graphcoloring", "state_checking", states["graphcoloring"][80])
    assert "corresonding" in gc and "(A) Colorable (B) Uncolorable" in gc


def test_prompt_defect_options(states: dict[str, Any]) -> None:
    stale = states["sudoku"][11]  # one of the 86 stale children
    assert "Explored next state" in build_prompt("sudoku", "state_checking", stale)
    fixed = build_prompt("sudoku", "state_checking", stale, PromptOptions(stale_child="omit"))
    assert "Explored next state" not in fixed and "Current state:" in fixed
    ok = states["sudoku"][0]
    assert build_prompt("sudoku", "state_checking", ok, PromptOptions(stale_child="omit")) == \
        build_prompt("sudoku", "state_checking", ok)
    # a GC state whose parent is uncolourable: the official prompt says Colorable, the fixed one does not
    from reasoneval.benchmarks.finereason.tasks import engine_for

    rec = next(r for r in states["graphcoloring"] if r["outputs"]["current_status"] == "Unsolvable"
               and not engine_for("graphcoloring", r).is_solvable(tuple(r["inputs"]["parent"])))
    assert "L(i-1) = Colorable" in build_prompt("graphcoloring", "state_transition", rec)
    assert "L(i-1) = Uncolorable" in build_prompt("graphcoloring", "state_transition", rec,
                                                  PromptOptions(true_ancestor_labels=True))


# -- state checking -----------------------------------------------------------------------------------
@pytest.mark.parametrize("response,label,method", [
    ("... so the answer is clear.\nAnswer: (B)", "Unsolvable", "last_letter"),
    ("Options (A) Solvable (B) Unsolvable. After checking: **Answer: (A)**", "Solvable", "last_letter"),
    ("Answer: ( B )", "Unsolvable", "last_letter"),
    ("I conclude.\nAnswer: Unsolvable", "Unsolvable", "answer_label"),
    ("Answer: Uncolorable, because vertex 3 ...", "Unsolvable", "answer_label"),
    ("Answer: colorable", "Solvable", "answer_label"),
    ("**Answer:** B", "Unsolvable", "answer_letter"),
    ("<think>maybe (A)</think>\nAnswer: (B)", "Unsolvable", "last_letter"),
    ("I cannot decide.", None, "none"),
    ("<think>it is (A) surely", None, "none"),  # never left the reasoning
])
def test_sc_extraction(response: str, label: str | None, method: str) -> None:
    assert extract_sc(response) == (label, method)


def test_sc_scoring_and_metrics(states: dict[str, Any]) -> None:
    solv, unsolv = states["sudoku"][0], states["sudoku"][1]
    v = score_state_checking(solv, "Answer: (A)")
    assert v.correct and v.extracted == "Solvable"
    assert not score_state_checking(unsolv, "Answer: (A)").correct
    golds = ["Unsolvable", "Unsolvable", "Unsolvable", "Solvable", "Solvable"]
    preds = ["Unsolvable", "Solvable", None, "Unsolvable", "Solvable"]
    m = state_checking_metrics(golds, preds)
    assert (m.tp, m.fn, m.fp, m.tn, m.unparsed) == (1, 2, 1, 1, 1)
    assert m.accuracy == pytest.approx(2 / 5)
    assert m.precision == pytest.approx(1 / 2) and m.recall == pytest.approx(1 / 3)
    assert m.f1 == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))


# -- state transition: hand-made responses ------------------------------------------------------------
def _grid(rows: list[list[Any]], *edits: tuple[int, int, Any]) -> list[list[Any]]:
    g = copy.deepcopy(rows)
    for r, c, v in edits:
        g[r][c] = v
    return g


def _cases(states: dict[str, Any]) -> list[tuple[str, int, str, str | None, dict[str, Any]]]:
    """(puzzle, state index, response, expected error or None for correct, extra checks)."""
    su_s = states["sudoku"][0]["inputs"]
    su_u = states["sudoku"][1]["inputs"]
    cur = su_s["current"]
    gc_s = states["graphcoloring"][80]["inputs"]["current"]
    gc_u = states["graphcoloring"][5]["inputs"]
    g_u = states["gridpuzzle"][120]["inputs"]
    g_s = states["gridpuzzle"][5]["inputs"]["current"]
    return [
        # Sudoku, solvable state (row 7 = [3, 6, 0, 0, 5, 0, 0, 7, 2])
        ("sudoku", 0, f"Fill 4.\nNext state: {_grid(cur, (7, 2, 4))}", None, {}),
        ("sudoku", 0, f"Next state: {_grid(cur, (7, 3, 8))}", None, {}),  # another cell: order not enforced
        ("sudoku", 0, f"Next state: {_grid(cur, (7, 2, 4), (7, 3, 8))}", MULTIPLE_MOVES, {}),
        ("sudoku", 0, f"Next state: {cur}", MULTIPLE_MOVES, {}),  # no move at all
        ("sudoku", 0, f"Next state: {_grid(cur, (7, 2, 3))}", INVALID_MOVE, {}),  # 3 already in row 7
        ("sudoku", 0, f"Next state: {_grid(cur, (7, 2, 10))}", INVALID_MOVE, {}),
        ("sudoku", 0, f"Next state: {su_s['parent']}", INVALID_MOVE, {}),  # backtracking from a solvable state
        ("sudoku", 0, f"Next state: {su_s['unsolvable_child']}", UNSOLVABLE_CHILD, {}),
        ("sudoku", 0, "Next state: [[1, 2, 3]]", PARSE_ERROR, {}),
        ("sudoku", 0, "Next state: \\{grid\\}", PARSE_ERROR, {}),
        ("sudoku", 0, f"The grid is {cur}", PARSE_ERROR, {}),  # no 'Next state:' marker
        # Sudoku, unsolvable state
        ("sudoku", 1, f"Backtrack.\nNext state: {su_u['parent']}", None, {}),
        ("sudoku", 1, f"Next state: {_grid(su_u['parent'], (7, 2, 4))}", SIBLING, {}),
        ("sudoku", 1, f"Next state: {su_u['current']}", BACKTRACKING_FAILURE, {"official_error": "sibling"}),
        ("sudoku", 1, f"Next state: {su_u['grandparent']}", BACKTRACKING_FAILURE, {"reason": "jumps back two levels"}),
        ("sudoku", 1, f"Next state: {_grid(su_u['current'], (7, 3, 8))}", BACKTRACKING_FAILURE, {}),
        ("sudoku", 1, "no idea", PARSE_ERROR, {}),
        # Graph Coloring (k = 10): solvable state 80, unsolvable state 5
        ("graphcoloring", 80, f"Next state: {gc_s[:13] + [10, 0]}", UNSOLVABLE_CHILD, {}),
        ("graphcoloring", 80, f"Next state: {gc_s[:13] + [0, 10]}", None, {}),
        ("graphcoloring", 80, f"Next state: {gc_s[:13] + [9, 0]}", INVALID_MOVE, {}),  # neighbour has 9
        ("graphcoloring", 80, f"Next state: {gc_s[:13] + [11, 0]}", INVALID_MOVE, {}),  # colour above k
        ("graphcoloring", 80, f"Next state: {gc_s[:13] + [10, 2]}", MULTIPLE_MOVES, {}),
        ("graphcoloring", 80, f"Next state: {gc_s[:14]}", PARSE_ERROR, {}),  # wrong length
        ("graphcoloring", 5, f"Next state: {gc_u['parent']}", None, {}),
        ("graphcoloring", 5, f"Next state: {gc_u['grandparent']}", BACKTRACKING_FAILURE, {}),
        ("graphcoloring", 5, f"Next state: {gc_u['unsolvable_child']}", BACKTRACKING_FAILURE, {}),
        # Game of 24: solvable state 0 (['(5 + 9)', '12', '12']), unsolvable state 375
        ("game24", 0, "Next state: ['((5 + 9) - 12)', '12']", None, {"child_solvable": True}),
        ("game24", 0, "Next state: ['12', '((5 + 9) - 12)']", None, {}),  # list order does not matter
        ("game24", 0, "Next state: ['(12 + (5 + 9))', '12']", UNSOLVABLE_CHILD, {}),  # commuted child
        ("game24", 0, "Next state: ['(12 / 12)', '(5 + 9)']", None, {"child_solvable": False}),
        ("game24", 0, "Next state: ['(((5 + 9) - 12) * 12)']", MULTIPLE_MOVES, {}),
        ("game24", 0, "Next state: ['(5 + 9)', '(12 ^ 12)']", PARSE_ERROR, {}),
        ("game24", 0, "Next state: ['(5 + 9)', '(12 + 13)']", INVALID_MOVE, {}),  # different numbers
        ("game24", 0, "Next state: ['5', '9', '12', '12']", INVALID_MOVE, {}),  # un-apply
        ("game24", 375, "Next state: ['(2 + 11)', '6', '7']", None, {}),
        ("game24", 375, "Next state: ['7', '6', '(2 + 11)']", None, {}),  # parent in another order
        ("game24", 375, "Next state: ['((2 + 11) - 6)', '7']", SIBLING, {}),
        ("game24", 375, "Next state: ['2', '6', '7', '11']", BACKTRACKING_FAILURE, {}),
        # Grid: solvable state 5, unsolvable state 120
        ("gridpuzzle", 5, f"Next state: {_grid(g_s, (3, 3, 'beets'))}", None, {}),  # clue 1
        ("gridpuzzle", 5, f"Next state: {_grid(g_s, (3, 3, 'beets'), (2, 1, 'Meadowgrove'))}", MULTIPLE_MOVES, {}),
        ("gridpuzzle", 5, f"Next state: {_grid(g_s, (2, 3, 'beets'))}", INVALID_MOVE, {}),
        ("gridpuzzle", 5, f"Next state: {_grid(g_s, (3, 1, 'Meadowgrove'))}", UNSOLVABLE_CHILD, {}),
        ("gridpuzzle", 120, f"Next state: {g_u['initial_to_current'][-2]}", None, {}),
        ("gridpuzzle", 120, f"Next state: {g_u['unsolvable_child']}", BACKTRACKING_FAILURE, {}),
        ("gridpuzzle", 120, f"Next state: {_grid(g_u['initial'], (1, 3, 'soy'), (4, 1, 'Lucky Star'), (4, 2, 'Red Oak'))}",
         SIBLING, {}),
    ]


def test_state_transition_taxonomy(states: dict[str, Any]) -> None:
    results = []
    for puzzle, idx, response, error, extra in _cases(states):
        v = score_state_transition(puzzle, states[puzzle][idx], response)
        assert v.correct == (error is None), (puzzle, idx, response[:80], v.detail)
        assert v.error == error, (puzzle, idx, response[:80], v.detail)
        for k, val in extra.items():
            assert v.detail.get(k) == val, (puzzle, idx, k, v.detail)
        results.append(v)
    counts = error_breakdown(results)
    assert all(counts[e] > 0 for e in (MULTIPLE_MOVES, INVALID_MOVE, UNSOLVABLE_CHILD, BACKTRACKING_FAILURE,
                                       SIBLING, PARSE_ERROR))


def test_state_transition_strict_mode(states: dict[str, Any]) -> None:
    rec = states["game24"][0]
    assert score_state_transition("game24", rec, "Next state: ['(12 / 12)', '(5 + 9)']").correct
    v = score_state_transition("game24", rec, "Next state: ['(12 / 12)', '(5 + 9)']", strict=True)
    assert not v.correct and v.error == UNSOLVABLE_CHILD


def test_release_own_transitions_are_correct_moves(states: dict[str, Any]) -> None:
    """The release's unsolvable children are valid moves (they score as Unsolvable Child, not Invalid Move)
    at every solvable state; backtracking to the recorded parent is correct at every unsolvable state."""
    for puzzle in ("sudoku", "graphcoloring", "game24", "gridpuzzle"):
        for rec in states[puzzle][:: 7]:
            inp = rec["inputs"]
            if rec["outputs"]["current_status"] == "Solvable":
                v = score_state_transition(puzzle, rec, f"Next state: {inp['unsolvable_child']}")
                assert v.error == UNSOLVABLE_CHILD, (puzzle, v.detail)
            else:
                parent = inp["initial_to_current"][-2] if puzzle == "gridpuzzle" else inp["parent"]
                assert score_state_transition(puzzle, rec, f"Next state: {parent}").correct


# -- end-to-end ---------------------------------------------------------------------------------------
def test_e2e_accepts_every_released_solution(questions: dict[str, Any]) -> None:
    for q in questions["sudoku"]:
        assert score_e2e("sudoku", q, f"Solution: {q['outputs']['final']}").correct
    for q in questions["gridpuzzle"]:
        assert score_e2e("gridpuzzle", q, f"Solution: {q['outputs']['solution']}").correct
    for q in questions["graphcoloring"]:
        col = GraphColoringEngine(q["inputs"]["graph"], q["inputs"]["chromatic_number"]).find_coloring()
        assert col is not None
        assert score_e2e("graphcoloring", q, f"Solution: {list(col)}").correct
    for q in questions["game24"]:
        expr = Game24Engine(q["inputs"]["initial_state"]).solution()
        assert expr is not None
        assert score_e2e("game24", q, f"Solution: {expr.render()} = 24").correct


@pytest.mark.parametrize("text,expected", [
    ("Solution: 5 + 5 + 5 + 9 = 24", "5 + 5 + 5 + 9"),
    ("**Solution:** $(12 \\times 12) \\div 6 = 24$.", "(12 * 12) / 6"),
    ("Solution: \\frac{12}{3} \\times 6", "((12)/(3)) * 6"),
    ("Solution: 24 = 4 * 6", "4 * 6"),
    ("no solution here", None),
])
def test_expression_extraction(text: str, expected: str | None) -> None:
    assert extract_expression(text) == expected


def test_e2e_rejects_wrong_answers(questions: dict[str, Any]) -> None:
    q = questions["game24"][0]  # 5 9 12 12
    assert score_e2e("game24", q, "Solution: (5 + 9 - 12) * 12 = 24").correct
    assert not score_e2e("game24", q, "Solution: (5 + 9 - 12) * 12 + 0 = 24").correct
    assert not score_e2e("game24", q, "Solution: 5 * 9 + 12 - 12 = 24").correct
    assert not score_e2e("game24", q, "I give up").correct
    s = questions["sudoku"][0]
    wrong = copy.deepcopy(s["outputs"]["final"])
    wrong[0][0], wrong[0][1] = wrong[0][1], wrong[0][0]
    assert not score_e2e("sudoku", s, f"Solution: {wrong}").correct
    g = questions["graphcoloring"][0]
    assert not score_e2e("graphcoloring", g, f"Solution: {[1] * len(g['inputs']['graph'])}").correct
    k = g["inputs"]["chromatic_number"]
    assert not score_e2e("graphcoloring", g, f"Solution: {list(range(1, len(g['inputs']['graph']) + 1))}"
                         ).correct or len(g["inputs"]["graph"]) <= k
    grid = questions["gridpuzzle"][0]
    sol = copy.deepcopy(grid["outputs"]["solution"])
    sol[1][1], sol[2][1] = sol[2][1], sol[1][1]
    assert not score_e2e("gridpuzzle", grid, f"Solution: {sol}").correct
    # cell types are matched: "9" for 9 is fine
    loose = [[str(x) for x in row] for row in grid["outputs"]["solution"]]
    assert score_e2e("gridpuzzle", grid, f"Solution: {loose}").correct


def test_score_dispatch(states: dict[str, Any]) -> None:
    assert score("sudoku", "state_checking", states["sudoku"][0], "Answer: (A)").correct
    with pytest.raises(ValueError):
        score("sudoku", "nope", states["sudoku"][0], "")
