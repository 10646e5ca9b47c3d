"""FineReason answer reading exactly as the official ``prompting.py`` ``get_answer`` methods and the
``*_tree.py`` ``is_next_state`` checks do it (``-O scoring=official``, the default), beside the corrected reading
(``tasks.py``, ``-O scoring=corrected``); end-to-end solving is in ``score_official_e2e``. Written from a reading of the official repository (``DAMO-NLP-SG/FineReason``,
``prompting.py``, ``game24_tree.py``, ``sudoku_tree.py``, ``graphcoloring_tree.py``); no code is taken from it.

**State checking** - each a difference from the corrected reader:

* the raw completion is read: no ``<think>`` section is removed (a label inside the reasoning counts), and an
  output with an unclosed ``<think>`` or cut at the token limit is read like any other (the official code
  knows neither: the verdict is not turned into "truncated"; ``detail["cut_off"]`` says it was);
* the last ``(A)`` / ``(B)`` wins, written exactly so (no spaces inside the parentheses);
* otherwise the text after the last ``Answer:`` is read, and when there is no such marker, the whole text;
* the words are the puzzle's own and case-sensitive: ``Solvable`` / ``Unsolvable`` (Sudoku, Game of 24, Grid;
  their prompter inherits the Sudoku reader) or ``Colorable`` / ``Uncolorable`` (Graph Coloring), tested by
  substring with the positive word *first*, so "Not Solvable" reads as Solvable while "unsolvable" is no label
  (and a Sudoku answer "Colorable" is none either);
* the letter fallback is a substring test: any capital ``A`` in the text means Solvable, else any ``B``
  Unsolvable.

**State transition** (Grid: ``score_official_grid``, the official ``LogicGridPuzzleTree`` next states):

* the raw completion, the text after the last ``Next state:`` (case-sensitive; no marker: the whole text);
* Sudoku: the last nine ``[d, d, ..., d]`` rows of single digits; Graph Coloring: *every* integer in that
  text, which must be as many as the graph's vertices; Game of 24: the last ``[...]`` holding no ``]``, read
  by ``ast.literal_eval`` as upstream (``u'...'``, ``('1')``, adjacent strings, triple quotes, a ``# comment``
  inside the list; bounded in length, :func:`python_literal`), whose expressions must carry the four initial
  numbers (``different numbers``);
* at an unsolvable state the answer must *equal* the parent as a list (Game of 24: in the same order); a
  valid move from the parent is ``sibling`` (the current state repeated included), anything else
  ``backtracking failure``;
* at a solvable state one valid move from the current state that is not *list-equal* to the shown
  unsolvable child (a reordered Game-of-24 child passes);
* the Game-of-24 move check is the official string surgery: the added expression, with every occurrence of
  each used expression deleted by ``str.replace`` (in the order the used ones first appear in the previous
  state), then again with their parentheses dropped, then spaces and parentheses removed, must leave exactly
  one operator character. Deleting *every* occurrence rejects valid moves whose operands are substrings of
  one another in the wrong order - ``['1', '13', ...] -> ['(13 - 1)', ...]`` deletes ``1`` first, leaves
  ``3-`` and reads "more than 1 operator" - and the values are never computed.

The official labels are kept in ``detail["official_error"]``; ``error`` maps them onto ``tasks.ERROR_TYPES``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from ...core.benchmark import Table
from ...core.values import Verdict
from .engines.base import INVALID_MOVE, MULTIPLE_MOVES, SOLVABLE, UNSOLVABLE
from .score_official_base import MAX_LITERAL_CHARS, OK, SUDOKU_ROW, python_literal
from .tasks import BACKTRACKING_FAILURE, PARSE_ERROR, SIBLING, UNSOLVABLE_CHILD
from .tasks import Verdict as TaskVerdict

_LETTER = re.compile(r"\(([AB])\)")
_WORDS = {"graphcoloring": ("Colorable", "Uncolorable")}
_SOLVABILITY_WORDS = ("Solvable", "Unsolvable")


def extract_sc_official(response: str, puzzle: str) -> tuple[str | None, str]:
    """(label, method) as the official evaluator of ``puzzle`` extracts it."""
    letters = _LETTER.findall(response)
    if letters:
        return (SOLVABLE if letters[-1] == "A" else UNSOLVABLE), "official_last_letter"
    tail = response.split("Answer:")[-1]
    yes, no = _WORDS.get(puzzle, _SOLVABILITY_WORDS)
    if yes in tail:
        return SOLVABLE, "official_word"
    if no in tail:
        return UNSOLVABLE, "official_word"
    if "A" in tail:
        return SOLVABLE, "official_letter"
    if "B" in tail:
        return UNSOLVABLE, "official_letter"
    return None, "none"


# -- state transition ---------------------------------------------------------------------------------
OFFICIAL_ST_PUZZLES = ("sudoku", "graphcoloring", "game24", "gridpuzzle")
_TYPE_OF = {
    "sibling": SIBLING,
    "backtracking failure": BACKTRACKING_FAILURE,
    "unsolvable child": UNSOLVABLE_CHILD,
    "parsing error": PARSE_ERROR,
    "no coloring found": PARSE_ERROR,
    "invalid coloring": PARSE_ERROR,  # Graph Coloring: not as many integers as vertices
    "multiple moves": MULTIPLE_MOVES,
    "length difference is not 1": MULTIPLE_MOVES,
    "no new expression or more than one new expression found": MULTIPLE_MOVES,
    "number of used expressions is not 2": MULTIPLE_MOVES,
    "invalid move": INVALID_MOVE,
    "too many colors": INVALID_MOVE,
    "different numbers": INVALID_MOVE,
    "more than 1 operator": INVALID_MOVE,
    "invalid operator": INVALID_MOVE,
}
_DIGITS = re.compile(r"\d+")


def _tail(text: str) -> str:
    return text.split("Next state:")[-1]


def _sudoku_step(prev: list[list[int]], nxt: list[list[int]]) -> str:
    """The official Sudoku next-state check (an IndexError for a grid of fewer than nine rows)."""
    changed = [(r, c) for r in range(9) for c in range(9) if prev[r][c] != nxt[r][c]]
    if len(changed) != 1:
        return "multiple moves"
    r, c = changed[0]
    v = nxt[r][c]
    if prev[r][c] != 0 or not 1 <= v <= 9:
        return "invalid move"
    br, bc = r // 3 * 3, c // 3 * 3
    peers = ({(r, j) for j in range(9)} | {(i, c) for i in range(9)}
             | {(i, j) for i in range(br, br + 3) for j in range(bc, bc + 3)}) - {(r, c)}
    return "invalid move" if any(prev[i][j] == v for i, j in peers) else OK


def _official_move(inp: dict[str, Any], status: str, state: Any, step: Callable[[Any, Any], str]) -> str:
    """The official state-transition verdict on the answered ``state`` (compared by exact equality), ``step``
    being the puzzle's next-state check: from an unsolvable state the answer must be its parent (another valid
    move from the parent is a sibling); otherwise a valid move that is not the known unsolvable child."""
    if status == UNSOLVABLE:
        if state == inp["parent"]:
            return OK
        return "sibling" if step(inp["parent"], state) == OK else "backtracking failure"
    got = step(inp["current"], state)
    if got != OK:
        return got
    return OK if state != inp["unsolvable_child"] else "unsolvable child"


def _sudoku(inp: dict[str, Any], status: str, text: str, seen: list[Any]) -> str:
    grid = [[int(x.strip()) for x in row.split(",")] for row in SUDOKU_ROW.findall(_tail(text))[-9:]]
    if grid:
        seen.append(grid)
    return _official_move(inp, status, grid, _sudoku_step)


def _gc_step(graph: list[list[int]], prev: list[int], nxt: list[int]) -> str:
    changed = [v for v in range(len(prev)) if prev[v] != nxt[v]]
    if len(changed) != 1:
        return "multiple moves"
    v = changed[0]
    if prev[v] != 0 or nxt[v] == 0:
        return "invalid move"
    return "invalid move" if any(prev[u] == nxt[v] for u in graph[v]) else OK


def _graphcoloring(inp: dict[str, Any], status: str, text: str, seen: list[Any]) -> str:
    coloring = [int(x) for x in _DIGITS.findall(_tail(text))]
    if not coloring:
        return "no coloring found"
    seen.append(coloring)
    graph = inp["graph"]
    if len(coloring) != len(graph):
        return "invalid coloring"
    if len({c for c in coloring if c != 0}) > inp["chromatic_number"]:
        return "too many colors"
    return _official_move(inp, status, coloring, lambda prev, nxt: _gc_step(graph, prev, nxt))


def last_bracket(text: str) -> str | None:
    """The last match of ``re.findall(r"\\[[^\\]]*\\]", text)``, found in linear time (the regex rescans to
    the end of the text from every ``[`` that no ``]`` follows)."""
    pos, last = 0, None
    while True:
        i = text.find("[", pos)
        if i < 0:
            return last
        j = text.find("]", i + 1)
        if j < 0:
            return last
        last, pos = text[i:j + 1], j + 1


def g24_step(prev: list[str], nxt: list[str]) -> str:
    """The official Game-of-24 next-state check, string surgery included (see the module docstring)."""
    if len(nxt) != len(prev) - 1:
        return "length difference is not 1"
    before, after = Counter(prev), Counter(nxt)
    added = after - before
    if len(added) != 1:
        return "no new expression or more than one new expression found"
    removed = before - after  # keeps ``before``'s order: the used expressions in order of first appearance
    if sum(removed.values()) != 2:
        return "number of used expressions is not 2"
    used = list(removed.elements())
    rest = next(iter(added))
    for e in used:
        rest = rest.replace(e, "")
    for e in used:
        rest = rest.replace(e.replace("(", "").replace(")", ""), "")
    rest = rest.replace(" ", "").replace("(", "").replace(")", "")
    if len(rest) != 1:
        return "more than 1 operator"
    return OK if rest in {"+", "-", "*", "/"} else "invalid operator"


def _game24(inp: dict[str, Any], status: str, text: str, seen: list[Any]) -> str:
    match = last_bracket(_tail(text))
    if match is None:
        return "parsing error"
    value = python_literal(match)
    if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
        return "parsing error"  # the official number check raises on anything but a list of strings
    seen.append(value)
    numbers = [int(n) for e in value for n in _DIGITS.findall(e)]
    if sorted(numbers) != sorted(int(x) for x in inp["initial_state"]):
        return "different numbers"
    return _official_move(inp, status, value, g24_step)


_READERS: dict[str, Callable[[dict[str, Any], str, str, list[Any]], str]] = {
    "sudoku": _sudoku, "graphcoloring": _graphcoloring, "game24": _game24}


def official_st_label(puzzle: str, record: dict[str, Any], response: str) -> tuple[str, Any]:
    """(the official label - ``"1"`` when correct -, the state it read or None)."""
    if puzzle == "gridpuzzle":
        from .score_official_grid import official_grid_st

        return official_grid_st(record, response)
    seen: list[Any] = []
    try:
        label = _READERS[puzzle](record["inputs"], record["outputs"]["current_status"], response, seen)
    except Exception:  # the official readers catch everything (a bare except)
        label = "parsing error"
    return label, (seen[0] if seen else None)


def score_st_official(puzzle: str, record: dict[str, Any], response: str) -> TaskVerdict | None:
    """The official state-transition verdict of ``response`` (the raw completion); None for a puzzle without
    an official reader."""
    if puzzle not in OFFICIAL_ST_PUZZLES:
        return None
    label, state = official_st_label(puzzle, record, response)
    extracted = None if state is None else json.dumps(state, ensure_ascii=False)
    detail: dict[str, Any] = {"gold_status": record["outputs"]["current_status"]}
    if label == OK:
        detail["error"] = None
    else:
        detail.update(error=_TYPE_OF.get(label, INVALID_MOVE), official_error=label)
    return TaskVerdict(label == OK, extracted, "official_next_state", detail)


# -- the two readings side by side --------------------------------------------------------------------
def _other_correct(v: Verdict) -> bool:
    d = v.detail
    return bool(d["other_correct"]) if "other_correct" in d else d["other_scoring"] == d.get("gold")


def scoring_diff_table(title: str, groups: list[tuple[str, list[Verdict | None]]], chosen: str) -> Table | None:
    """Per puzzle: accuracy under the chosen reading and under the other one (kept in
    ``detail["other_scoring"]`` / ``["other_correct"]``), how many answers the two read differently and how
    many verdicts differ. None when no verdict carries the other reading (runs scored before the option
    existed)."""
    other = "corrected" if chosen == "official" else "official"
    rows: list[list[Any]] = []
    for name, vs in groups:
        scored = [v for v in vs if v is not None and v.outcome.value != "error" and "other_scoring" in v.detail]
        if not scored:
            continue
        here = sum(v.correct for v in scored)
        there = sum(_other_correct(v) for v in scored)
        differ = sum(v.detail["other_scoring"] != v.extracted for v in scored)
        flipped = sum(v.correct != _other_correct(v) for v in scored)
        n = len(scored)
        rows.append([name, n, round(100 * here / n, 2), round(100 * there / n, 2), round(100 * (here - there) / n, 2),
                     differ, flipped])
    if not rows:
        return None
    return Table(title, ["puzzle", "n", f"accuracy ({chosen})", f"accuracy ({other})", "difference",
                         "answers read differently", "verdicts differ"],
                 rows, [f"scoring={chosen} is this run's; the {other} reading of the same completions is shown beside "
                        "it (official: the official get_answer / is_next_state exactly, the raw output read; "
                        "corrected: think removed and cut-off outputs unanswerable, whole-word labels, states "
                        "compared as the puzzle's states, solutions checked by the puzzle's rules)"])


__all__ = ["MAX_LITERAL_CHARS", "OK", "SUDOKU_ROW", "python_literal"]
