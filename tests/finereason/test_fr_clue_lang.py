"""The Logic-Grid clue language: tokenizer/parser errors, official two-valued reading, sound set-valued
reading used by the search, clue application."""

from __future__ import annotations

import itertools
import random

import pytest

from reasoneval.benchmarks.finereason.engines.clue_lang import (
    ClueSyntaxError,
    Context,
    compile_condition,
    mentions,
    parse,
)
from reasoneval.benchmarks.finereason.engines.gridpuzzle import (
    GridPuzzle,
    GridPuzzleEngine,
    GridState,
    parse_categories,
    table_context,
)

COLS = {"times": 0, "names": 1, "ailments": 2}
TABLE = (("times", "names", "ailments"), (9, "Terry", "back pain"), (10, "Guy", ""), (11, "", "vertigo"))


def holds(text: str, table: tuple = TABLE) -> bool:
    return compile_condition(text, COLS).holds(table_context(table))


def test_parser_accepts_the_release_grammar() -> None:
    for text in [
        "(T[r('Lifealign')][c('times')] < T[r('shingles')][c('times')])",
        "(T[r(12)][c('names')] == 'Terry' or T[r(12)][c('insurers')] == 'Ambercare') and "
        "(T[r('Terry')][c('insurers')] != 'Ambercare')",
        "(T[r('back pain')][c('times')] == T[r('Guy')][c('times')] - 2)",
        "T[r(26)][c('clients')]!='Edith'",
        "not T[r(\"O'Brien\")][c(\"names\")] >= 1.5",
        "1 < 2 < 3",
    ]:
        parse(text)


@pytest.mark.parametrize("text,pos", [
    ("__import__('os').system('x')", 0),
    ("T[r('a')][c('b')] == 'x' ;", 25),
    ("T[r('a')][c(1)] == 2", 12),
    ("T[r('a')] == 2", 10),
    ("(T[r('a')][c('b')] == 1", 23),
    ("T[r('a')][c('b')] ** 2", 18),
    ("lambda: 1", 0),
    ("'unterminated", 0),
])
def test_parser_rejects_everything_else(text: str, pos: int) -> None:
    with pytest.raises(ClueSyntaxError) as exc:
        parse(text)
    assert exc.value.pos == pos


def test_official_two_valued_reading() -> None:
    assert holds("T[r(9)][c('names')] == 'Terry'")
    assert holds("T[r('Guy')][c('times')] == T[r('Terry')][c('times')] + 1")
    assert holds("T[r('vertigo')][c('times')] > T[r('Guy')][c('times')]")
    # an unplaced value and an empty cell read as ''
    assert holds("T[r('Paul')][c('names')] == ''") and holds("T[r(10)][c('ailments')] == ''")
    assert holds("T[r('Paul')][c('ailments')] != 'shingles'")
    # an unknown header reads as ''
    assert holds("T[r(9)][c('nope')] == ''")
    # type errors make the whole condition False, even under 'or' once reached
    assert not holds("T[r('Paul')][c('times')] < 3")
    assert not holds("T[r('Paul')][c('times')] - 1 == 3 or 1 == 1")
    assert holds("1 == 1 or T[r('Paul')][c('times')] - 1 == 3")  # short-circuit never reaches the error
    assert holds("not T[r(9)][c('names')] == 'Guy'")
    assert holds("1 < 2 < 3") and not holds("1 < 3 < 2")


def test_mentions() -> None:
    node = parse("(T[r(12)][c('names')] == 'Terry' or T[r(12)][c('insurers')] == 'Ambercare') and "
                 "(T[r('back pain')][c('times')] == T[r('Guy')][c('times')] - 2)")
    assert mentions(node) == [(12, None), ("Terry", "names"), (12, None), ("Ambercare", "insurers"),
                              ("back pain", None), ("Guy", None)]


def _toy_puzzle() -> GridPuzzle:
    cats = "times : 9, 10, 11.\nnames : Ann, Bob, Cy.\nfoods : pie, jam, tea."
    clues = {
        "1": {"text": "", "conditions": "T[r('Ann')][c('times')] < T[r('pie')][c('times')]"},
        "2": {"text": "", "conditions": "T[r(10)][c('names')] == 'Bob' or T[r(10)][c('foods')] == 'jam'"},
        "3": {"text": "", "conditions": "T[r('Cy')][c('foods')] != 'tea'"},
    }
    initial = [["times", "names", "foods"], [9, "", ""], [10, "", ""], [11, "", ""]]
    return GridPuzzle.from_inputs({"question": "q", "categories": cats, "clues": clues, "initial": initial})


def _all_tables(p: GridPuzzle) -> list[tuple]:
    out = []
    for names in itertools.permutations(p.domains[1]):
        for foods in itertools.permutations(p.domains[2]):
            out.append((p.initial[0],) + tuple((p.domains[0][i], names[i], foods[i]) for i in range(3)))
    return out


def test_search_reading_is_sound_and_complete() -> None:
    """Brute force over all 36 complete tables: completions() returns exactly those satisfying every clue,
    from random partial tables too."""
    p = _toy_puzzle()
    full = [t for t in _all_tables(p) if all(c.holds(table_context(t)) for c in p.conditions.values())]
    assert sorted(p.completions(p.initial, 100)) == sorted(full)
    rng = random.Random(0)
    for t in _all_tables(p):
        partial = tuple(tuple(v if j == 0 or rng.random() < 0.5 else "" for j, v in enumerate(row))
                        for row in t[1:])
        partial = (p.initial[0],) + partial
        want = sorted(f for f in full if p.extends(partial, f))
        assert sorted(p.completions(partial, 100)) == want


def test_clue_application_places_every_mentioned_value() -> None:
    p = _toy_puzzle()
    kids = p.apply_clue(p.initial, "1")
    # Ann before pie: Ann (names) and pie (foods) placed in distinct-or-same rows with time(Ann) < time(pie)
    assert len(kids) == 3
    for t in kids:
        ctx = table_context(t)
        assert p.conditions["1"].holds(ctx)
        assert sum(v != "" for row in t[1:] for v in row[1:]) == 2
    # a clue with nothing left to place that holds keeps the table unchanged
    t = kids[0]
    assert p.apply_clue(t, "1") == [t]
    eng = GridPuzzleEngine(p, ["1", "2", "3"])
    st = GridState(t, ("1",))
    assert eng.check_forward(st, GridState(p.apply_clue(t, "3")[0])) is None
    assert eng.check_forward(GridState(p.initial), GridState(t)) is None


def test_parse_categories() -> None:
    cats = parse_categories("times : 7.0 (7:00am), 7.5 (7:30am).\nprices ($) : 25, 26.\nnames: Al, Bo.")
    assert cats == [("times", [7.0, 7.5]), ("prices ($)", [25, 26]), ("names", ["Al", "Bo"])]


def test_context_is_plain_data() -> None:
    ctx = Context({"a": 1}, [["x", "y"], ["a", ""]])
    assert compile_condition("T[r('a')][c('k')] == ''", {"k": 1}).holds(ctx)
