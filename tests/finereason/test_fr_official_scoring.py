"""``-O scoring=official``: FineReason state-checking extraction and state-transition scoring as the official
get_answer / is_next_state read them (the Game of 24 ``str.replace`` move check included), the official
depth-1 prompt (``S(i-2) = None``), the corrected reading beside it, and the summaries' diff tables."""

from __future__ import annotations

import copy
import random
import re
from typing import Any

import pytest

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.items import make_item
from reasoneval.benchmarks.finereason.score_official import (
    extract_sc_official,
    g24_step,
    last_bracket,
    score_st_official,
)
from reasoneval.benchmarks.finereason.tasks import extract_sc, score_state_transition
from reasoneval.core.benchmark import OutsideRow, ScoredRow, Turn
from reasoneval.core.errors import OptionError
from reasoneval.core.values import Completion, Prompt

SC = "state-checking"
ST = "state-transition"


@pytest.mark.parametrize(("text", "official", "corrected", "puzzle"), [
    # no marker: the official reader still reads the whole text; the corrected one needs "Answer:"
    ("The state is Unsolvable.", "Unsolvable", None, "sudoku"),
    # case-sensitive words: lower-case "unsolvable" is no label officially
    ("Answer: unsolvable", None, "Unsolvable", "sudoku"),
    # Solvable is tested first, by substring: "Not Solvable" reads Solvable officially
    ("Answer: Not Solvable", "Solvable", "Unsolvable", "sudoku"),
    ("Answer: Not Colorable", "Solvable", "Unsolvable", "graphcoloring"),
    # substring letter test: the capital A of "At" means (A) Solvable officially
    ("Answer: At this point it is B", "Solvable", "Unsolvable", "sudoku"),
    # no <think> stripping: a letter inside the reasoning counts officially
    ("<think>maybe (B)</think> Answer: the grid can still be completed", "Unsolvable", None, "sudoku"),
    # the last (A)/(B) wins in both; spaces inside the parentheses only for the corrected reader
    ("(B) ... on reflection (A)", "Solvable", "Solvable", "sudoku"),
    ("Answer: ( B )", "Unsolvable", "Unsolvable", "sudoku"),
    ("( B ) and nothing else", "Unsolvable", "Unsolvable", "sudoku"),  # officially by the letter substring test
    ("Colorable? Answer: Uncolorable", "Unsolvable", "Unsolvable", "graphcoloring"),
    # each puzzle's own words: the Sudoku / Game of 24 / Grid reader knows no Colorable, Graph Coloring no Solvable
    ("Answer: Uncolorable", None, "Unsolvable", "game24"),
    ("Answer: solvable, so Solvable", "Solvable", "Solvable", "gridpuzzle"),
    ("Answer: Solvable", None, "Solvable", "graphcoloring"),
])
def test_official_and_corrected_readings(text: str, official: str | None, corrected: str | None,
                                         puzzle: str) -> None:
    assert extract_sc_official(text, puzzle)[0] == official
    assert extract_sc(text)[0] == corrected


def _bench(scoring: str | None) -> FineReason:
    b = FineReason()
    if scoring:
        b.configure({"scoring": scoring})
    return b


def test_option_drives_the_verdict_and_keeps_the_other_reading() -> None:
    with pytest.raises(OptionError):
        FineReason.Options.parse(["scoring=lenient"])
    b = _bench("official")
    item = next(i for i in b.load("sudoku", SC) if i.gold == "Unsolvable")
    text = "Answer: Not Solvable"  # official: Solvable (wrong); corrected: Unsolvable (right)
    off = b.score(item, text, SC)
    cor = _bench("corrected").score(item, text, SC)
    assert not off.correct and off.extracted == "Solvable" and off.detail["other_scoring"] == "Unsolvable"
    assert cor.correct and cor.detail["other_scoring"] == "Solvable"
    # scoring is always in the run id: an id without it stands for a run of the old default (corrected)
    assert FineReason.Options().identity() == {"scoring": "official"} == b.options.identity()
    assert _bench("corrected").options.identity() == {"scoring": "corrected"}


def test_summary_has_the_diff_table() -> None:
    b = _bench("official")
    items = [i for i in b.load("sudoku", SC)][:4]
    texts = ["Answer: Not Solvable", "(A)", "Answer: (B)", "Unsolvable"]
    rows = [ScoredRow(i.key, "sudoku", 0, [Turn(Prompt.chat("q"), Completion(t), b.score(i, t, SC))])
            for i, t in zip(items, texts, strict=True)]
    tables = b.summarize(rows, SC)
    diff = next(t for t in tables if "official vs corrected" in t.title)
    row = diff.rows[0]
    assert row[0] == "sudoku" and row[1] == 4
    golds = [i.gold for i in items]
    off = [extract_sc_official(t, "sudoku")[0] for t in texts]
    cor = [extract_sc(t)[0] for t in texts]
    assert row[2] == round(100 * sum(o == g for o, g in zip(off, golds, strict=True)) / 4, 2)
    assert row[3] == round(100 * sum(c == g for c, g in zip(cor, golds, strict=True)) / 4, 2)
    assert row[5] == sum(o != c for o, c in zip(off, cor, strict=True))
    assert row[6] == sum((o == g) != (c == g) for o, c, g in zip(off, cor, golds, strict=True))


# -- state transition ---------------------------------------------------------------------------------
def _g24(states: dict[str, list[dict[str, Any]]], i: int) -> dict[str, Any]:
    return states["game24"][i]


def test_game24_str_replace_rejects_a_valid_move(states: dict[str, list[dict[str, Any]]]) -> None:
    """game24/74: current ['(4 * 6)', '2', '12']. The official check deletes every '2' of the new expression
    before it looks for '12' (the used expressions in their order of first appearance), leaving '1+' / '1-'."""
    rec = _g24(states, 74)
    assert rec["inputs"]["current"] == ["(4 * 6)", "2", "12"] and rec["outputs"]["current_status"] == "Solvable"
    for new in ("(12 - 2)", "(2 + 12)", "(12 * 2)"):
        text = f"Next state: ['(4 * 6)', '{new}']"
        off = score_st_official("game24", rec, text)
        assert off is not None and not off.correct and off.detail["official_error"] == "more than 1 operator"
        assert score_state_transition("game24", rec, text).correct
    # the same move on operands that are no substrings of one another passes both
    ok = "Next state: ['((4 * 6) - 2)', '12']"
    off = score_st_official("game24", rec, ok)
    assert off is not None and off.correct and score_state_transition("game24", rec, ok).correct


@pytest.mark.parametrize(("prev", "nxt", "label"), [
    (["1", "13", "5"], ["(13 - 1)", "5"], "more than 1 operator"),  # '1' deleted first: '(3 - )'
    (["13", "1", "5"], ["(13 - 1)", "5"], "1"),  # '13' first: both deleted cleanly
    (["2", "3", "4"], ["2 + 3", "4"], "1"),  # no parentheses needed
    (["2", "3", "4"], ["((2)) * ((3))", "4"], "1"),  # any parentheses
    (["2", "3", "4"], ["(2 ^ 3)", "4"], "invalid operator"),
    (["2", "3", "4"], ["(2 + 3)", "(3 + 4)"], "no new expression or more than one new expression found"),
    (["2", "3", "4"], ["(2 + 3)", "(2 + 3)"], "number of used expressions is not 2"),  # one new key, counted once
    (["2", "3", "4", "5"], ["(2 + 3)", "4"], "length difference is not 1"),
    # '2' and '4' used, yet '(2 + 2)' passes: both '2's go in one replace and the values are never checked
    # (the number pre-check of the scorer, not this one, refuses it)
    (["2", "2", "4"], ["(2 + 2)", "2"], "1"),
])
def test_g24_step(prev: list[str], nxt: list[str], label: str) -> None:
    assert g24_step(prev, nxt) == label


def test_game24_order_sensitive_list_equality(states: dict[str, list[dict[str, Any]]]) -> None:
    # unsolvable game24/375: the parent written in another order is no backtrack officially
    rec = _g24(states, 375)
    assert rec["outputs"]["current_status"] == "Unsolvable"
    text = "Next state: ['6', '(2 + 11)', '7']"
    off = score_st_official("game24", rec, text)
    assert off is not None and not off.correct and off.detail["official_error"] == "backtracking failure"
    assert score_state_transition("game24", rec, text).correct
    # solvable game24/0: the unsolvable child reordered passes officially
    rec = _g24(states, 0)
    text = "Next state: ['12', '((5 + 9) + 12)']"
    off = score_st_official("game24", rec, text)
    assert off is not None and off.correct
    assert score_state_transition("game24", rec, text).error == "Unsolvable Child"


def test_game24_reading(states: dict[str, list[dict[str, Any]]]) -> None:
    rec = _g24(states, 0)  # current ['(5 + 9)', '12', '12']
    good = "['((5 + 9) * 12)', '12']"
    cases = [
        (f"Next state: {good}", True, True),
        (f"The next state is {good}", True, False),  # no marker: the whole text officially
        (f"<think>Next state: {good}</think> I am done.", True, False),  # think not stripped
        (f"Next state: {good} - that is [the answer]", False, True),  # the last [...] is read officially
        ("Next state: ['(5 + 9)', '(12 * 12)', '7']", False, False),  # different numbers
    ]
    for text, official, corrected in cases:
        off = score_st_official("game24", rec, text)
        assert off is not None and off.correct is official, text
        assert score_state_transition("game24", rec, text).correct is corrected, text
    off = score_st_official("game24", rec, "Next state: ['(5 + 9)', '(12 * 12)', '7']")
    assert off is not None and off.detail["official_error"] == "different numbers"
    off = score_st_official("game24", rec, "Next state: [24]")
    assert off is not None and off.detail["error"] == "Parse Error"


def test_last_bracket_is_the_official_regex() -> None:
    rng = random.Random(3)
    pat = re.compile(r"\[[^\]]*\]")
    for _ in range(3000):
        text = "".join(rng.choice("[]ab ") for _ in range(rng.randrange(0, 14)))
        found = pat.findall(text)
        assert last_bracket(text) == (found[-1] if found else None), text


def test_sudoku_and_graphcoloring_readings(states: dict[str, list[dict[str, Any]]]) -> None:
    sud = states["sudoku"][1]  # unsolvable: the answer must be the parent
    parent = sud["inputs"]["parent"]
    text = f"Next state: {parent}"
    assert score_st_official("sudoku", sud, text).correct  # type: ignore[union-attr]
    repeat = f"Next state: {sud['inputs']['current']}"  # repeating the current state: "sibling" officially
    assert score_st_official("sudoku", sud, repeat).detail["official_error"] == "sibling"  # type: ignore[union-attr]
    gc = states["graphcoloring"][0]  # solvable; vertex 18 uncoloured
    nxt = list(gc["inputs"]["current"])
    nxt[18] = next(c for c in range(1, 9) if all(nxt[u] != c for u in gc["inputs"]["graph"][18]))
    clean = f"Next state: {nxt}"
    chatty = f"Next state: {nxt} (vertex 18 gets colour {nxt[18]})"  # every integer after the marker counts officially
    assert score_st_official("graphcoloring", gc, clean).correct  # type: ignore[union-attr]
    assert score_state_transition("graphcoloring", gc, clean).correct
    off = score_st_official("graphcoloring", gc, chatty)
    assert off is not None and off.detail["official_error"] == "invalid coloring"
    assert score_state_transition("graphcoloring", gc, chatty).correct
    grid = score_st_official("gridpuzzle", states["gridpuzzle"][0], "Next state: []")
    assert grid is not None and grid.detail["official_error"] == "parsing error"  # no [[...]]


def test_every_reference_answer_is_officially_correct() -> None:
    b = FineReason()
    for puzzle in ("sudoku", "graphcoloring", "game24", "gridpuzzle"):
        for item in b.load(puzzle, ST):
            off = score_st_official(puzzle, item.data, f"Next state: {item.gold}")
            assert off is not None and off.correct, (puzzle, item.id)


def test_st_option_drives_the_verdict_and_the_diff_table(states: dict[str, list[dict[str, Any]]]) -> None:
    rec = _g24(states, 74)
    text = "Next state: ['(4 * 6)', '(12 - 2)']"
    off_b, cor_b = _bench("official"), _bench("corrected")
    item = make_item("game24", ST, "74", rec)
    off, cor = off_b.score(item, text, ST), cor_b.score(item, text, ST)
    assert not off.correct and off.detail["error_type"] == "Invalid Move"
    assert off.detail["official_error"] == "more than 1 operator" and off.detail["other_correct"] is True
    assert cor.correct and cor.detail["other_correct"] is False and cor.detail["official_error"] == "more than 1 operator"
    grid = make_item("gridpuzzle", ST, "0", states["gridpuzzle"][0])  # the official Grid reader
    g = off_b.score(grid, "Next state: []", ST)
    assert g.detail["official_error"] == "parsing error" and "other_scoring" in g.detail
    row = ScoredRow(item.key, "game24", 0, [Turn(Prompt.chat("q"), Completion(text), off)])
    diff = next(t for t in off_b.summarize([row], ST) if "official vs corrected" in t.title)
    assert diff.rows == [["game24", 1, 0.0, 100.0, -100.0, 0, 1]]
    assert "str.replace" in off_b.diff_reason(OutsideRow(item, ST, Completion(text), "x"), text)
    sc_item = next(i for i in off_b.load("sudoku", SC) if i.gold == "Unsolvable")
    why = off_b.diff_reason(OutsideRow(sc_item, SC, Completion("Not Solvable"), "x"), "Not Solvable")
    assert "whole text" in why and "official: Solvable; corrected: no label" in why


# -- the official depth-1 prompt ----------------------------------------------------------------------
def test_official_prompt_shows_a_null_grandparent(states: dict[str, list[dict[str, Any]]]) -> None:
    off_b, cor_b = _bench("official"), _bench("corrected")
    for puzzle, label in (("sudoku", "Solvable"), ("graphcoloring", "Colorable")):
        rec = copy.deepcopy(states[puzzle][0])
        rec["inputs"]["grandparent"] = None  # a generated depth-1 state
        item = make_item(puzzle, ST, "0", rec)
        official = off_b.prompt(item, ST).messages[0].content
        corrected = cor_b.prompt(item, ST).messages[0].content
        assert f"**Two moves ago:**\nS(i-2) = None\nL(i-2) = {label}\n**One move ago:**" in official
        assert "Two moves ago" not in corrected and "S(i-2)" not in corrected
        assert official.replace(f"**Two moves ago:**\nS(i-2) = None\nL(i-2) = {label}\n", "") == corrected
    g24 = make_item("game24", ST, "0", states["game24"][0])  # released depth 1: grandparent null
    assert off_b.prompt(g24, ST) == cor_b.prompt(g24, ST)
    assert "One move ago" not in off_b.prompt(g24, ST).messages[0].content


def test_official_prompts_equal_the_default_on_the_release() -> None:
    """No released Sudoku / Graph Coloring state has a null grandparent: every released prompt is unchanged."""
    off_b, cor_b = _bench("official"), _bench("corrected")
    for puzzle in ("sudoku", "graphcoloring", "game24", "gridpuzzle"):
        for mode in (SC, ST):
            for item in off_b.load(puzzle, mode):
                assert off_b.prompt(item, mode) == cor_b.prompt(item, mode), (puzzle, mode, item.id)
