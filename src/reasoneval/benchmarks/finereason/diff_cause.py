"""Why the official and the corrected reading of one FineReason answer disagree (``rescore --diff``).

The cause is found by taking the two readings apart step by step rather than guessed from the text:

1. a cut-off output (an unclosed ``<think>``, the token limit) is read as it is officially and counted
   truncated when corrected;
2. the official reading of the raw output against the official reading of the output with its ``<think>``
   sections removed: when they disagree, text inside ``<think>`` decided it;
3. otherwise the two readers disagree on the answer text itself, and the official quirk that decides it is
   named from what each reader found (the marker, the words or letters, the state or solution read, the
   official label).

Every cause ends with the two labels (``official: ...; corrected: ...``). No model text is quoted.
"""

from __future__ import annotations

import re
from typing import Any

from . import tasks
from .modes import SC, ST, TASK_OF
from .score_official import extract_sc_official, score_st_official
from .score_official_e2e import g24_expression, score_e2e_official

_SPACED_LETTER = re.compile(r"\(\s+[AB]\s*\)|\(\s*[AB]\s+\)")
_SC_WHY = {
    "official_last_letter": "the last (A)/(B) written exactly so wins officially",
    "official_word": "official words are case-sensitive substrings, the positive word first "
                     "('Not Solvable' reads Solvable)",
    "official_letter": "officially any capital A (else B) in the text is the letter",
    "none": "the official reader finds no label (lower-case or another puzzle's words)",
}


def _official(puzzle: str, mode: str, record: dict[str, Any], text: str) -> tasks.Verdict | None:
    if mode == SC:
        label, method = extract_sc_official(text, puzzle)
        return tasks.Verdict(label == record["outputs"]["current_status"], label, method)
    if mode == ST:
        return score_st_official(puzzle, record, text)
    return score_e2e_official(puzzle, record, text)


def diff_cause(puzzle: str, mode: str, record: dict[str, Any], raw: str, final: str, cut_off: bool,
               strict: bool = False) -> str:
    """The cause of a disagreement between the two readings of ``raw`` (``final``: without reasoning)."""
    off = _official(puzzle, mode, record, raw)
    if off is None:  # no official reader for this puzzle
        return "no official reader: the corrected scorer under both values"
    cor = tasks.score(puzzle, TASK_OF[mode], record, final, **({"strict": strict} if mode == ST else {}))
    notes: list[str] = []
    if cut_off:
        notes.append("cut-off output (unclosed <think> or the token limit): read as it is officially, "
                     "counted truncated when corrected")
    else:
        bare = _official(puzzle, mode, record, final)
        if bare is not None and (bare.correct, bare.extracted) != (off.correct, off.extracted):
            notes.append("text inside <think> decided it officially (the corrected reading removes it)")
        elif bare is not None:
            notes.append(_text_cause(puzzle, mode, record, final, bare, cor))
    notes.append(f"official: {_label(mode, off)}; corrected: {'truncated' if cut_off else _label(mode, cor)}")
    return "; ".join(notes)


def _label(mode: str, v: tasks.Verdict) -> str:
    if mode == SC:
        return v.extracted or "no label"
    if v.correct:
        return "correct"
    return str(v.detail.get("official_error") or v.detail.get("error") or v.detail.get("reason") or "wrong")


def _text_cause(puzzle: str, mode: str, record: dict[str, Any], text: str, off: tasks.Verdict,
                cor: tasks.Verdict) -> str:
    if mode == SC:
        return _sc_cause(text, off, cor)
    if mode == ST:
        return _st_cause(puzzle, text, off, cor)
    return _e2e_cause(puzzle, record, text, off, cor)


def _sc_cause(text: str, off: tasks.Verdict, cor: tasks.Verdict) -> str:
    if off.method == "official_last_letter" and _SPACED_LETTER.search(text):
        return "a spaced '( B )' counts when corrected, only an exact (A)/(B) officially"
    if off.method != "official_last_letter" and _SPACED_LETTER.search(text) and cor.method == "last_letter":
        return "a spaced '( B )' counts when corrected, not officially"
    if "Answer:" not in text and off.extracted is not None and cor.method != "last_letter":
        return "no exact 'Answer:' marker: the whole text is read officially"
    return _SC_WHY.get(off.method, off.method)


def _st_cause(puzzle: str, text: str, off: tasks.Verdict, cor: tasks.Verdict) -> str:
    label = off.detail.get("official_error")
    if "Next state:" not in text:
        return "no exact 'Next state:' marker: the whole text is read officially"
    if cor.error == tasks.PARSE_ERROR and off.extracted is not None:
        return {"sudoku": "the last nine digit rows are read officially (rows without outer brackets)",
                "graphcoloring": "every integer after 'Next state:' is read officially",
                "gridpuzzle": "officially the last [[...]] after 'Next state:' is read by ast.literal_eval",
                "game24": "Python literal syntax (ast.literal_eval: u'', ('...'), triple quotes, comments) is "
                          "read officially"}.get(puzzle, "the official reader reads a state here")
    if puzzle == "game24" and label in ("more than 1 operator", "invalid operator") and cor.correct:
        return "the official Game of 24 str.replace move check rejects a valid move"
    if puzzle == "graphcoloring" and label in ("invalid coloring", "no coloring found"):
        return "every integer after 'Next state:' counts officially (a remark or a number breaks the colouring)"
    if puzzle == "gridpuzzle" and not off.correct and cor.correct and label == "invalid move":
        return "the official next-state check is exact table equality (\"9\" is not 9) over the official clue moves"
    if puzzle == "sudoku" and off.extracted != cor.extracted:
        return "the last nine digit rows are read officially (another grid after the answer)"
    if not off.correct and cor.correct and label in ("backtracking failure", "sibling"):
        return "the official parent check is exact list equality (order and format)"
    if off.correct and not cor.correct and cor.error == tasks.UNSOLVABLE_CHILD:
        return "the official unsolvable-child check is exact list equality (a reordered child passes)"
    if label == "sibling" and cor.error == tasks.BACKTRACKING_FAILURE:
        return "officially the current state repeated is a sibling"
    if label == "different numbers":
        return "officially every integer of the expressions must be the four numbers"
    return "the official move check decides otherwise"


def _e2e_cause(puzzle: str, record: dict[str, Any], text: str, off: tasks.Verdict, cor: tasks.Verdict) -> str:
    label = off.detail.get("official_error")
    marker = "Solution:" in text
    if puzzle == "game24":
        expr = g24_expression(text)
        if label == "different numbers" and re.fullmatch(r"\s*24\s*", expr):
            return "'24 = expr' reads 24 officially (the left of the first '=')"
        if label == "parsing error":
            return f"SymPy cannot parse the expression officially ({_unparsable(expr)})"
        if label == "unsupported":
            return "names or factorials are evaluated symbolically officially (not reproduced: counted wrong)"
        if not marker:
            return "no exact 'Solution:' marker: the whole text is read officially"
        return "officially the text left of the first '=' after 'Solution:' must use the four numbers and be 24"
    if not marker:
        return "no exact 'Solution:' marker: the whole text is read officially"
    if puzzle == "sudoku":
        return "the last nine digit rows are read officially (rows without outer brackets, a grid after the solution)"
    if puzzle == "graphcoloring":
        if label in ("invalid coloring", "no coloring found"):
            return "every integer after 'Solution:' counts officially (a remark or a number breaks the colouring)"
        if off.correct and isinstance(off.extracted, str) and 0 in _ints(off.extracted):
            return "officially uncoloured vertices (0) are skipped: an incomplete colouring passes"
        if label == "too many colors":
            return "officially more than k distinct colours is wrong"
        return "every integer after 'Solution:' is read officially (quoted numbers too)"
    if puzzle == "gridpuzzle":
        sol = record["outputs"].get("solution")
        if not off.correct and cor.correct and sol is not None:
            return "the official table comparison is exact: \"9\" is not 9"
        return "officially the last [[...]] after 'Solution:' is read by ast.literal_eval"
    return "the official reader decides otherwise"


def _unparsable(expr: str) -> str:
    """What in a Game-of-24 expression SymPy cannot parse (the first kind found)."""
    found = [what for marks, what in ((("×", "÷", "·", "−"), "a × ÷ · − sign"), (("$",), "$...$"),
                                      (("**",), "markdown **"), (("\\",), "a LaTeX command left"),
                                      (("`",), "a backquote"))
             if any(m in expr for m in marks)]
    if re.search(r"[A-Za-z]", expr):
        found.append("words")
    return ", ".join(found) or "not Python arithmetic"


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]
