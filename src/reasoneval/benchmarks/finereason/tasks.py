"""FineReason tasks: prompts and scorers for state checking (SC), state transition (ST) and end-to-end
solving (E2E), plus the SC precision/recall/F1 metrics. Scorers are pure functions of (record, response).

SC (the corrected reading, ``-O scoring=corrected``; ``score_official`` has the official one, the default):
``<think>`` sections removed, the label is the last ``(A)``/``(B)`` in the answer; fallback: the text after the
last ``Answer:`` (whole words, any case: "Unsolvable"/"Uncolorable"/"not solvable" before
"Solvable"/"Colorable", then a bare A/B). Correct iff it equals ``outputs.current_status``.

ST (paper 3.2 and the official scorer; ground-truth labels are given): the state after the last
``Next state:`` is judged against the tree -
  * at a solvable state it must be one valid minimal forward move (any empty cell / uncoloured vertex /
    pair of expressions / unapplied clue - the DFS order is not enforced) and not the shown unsolvable child;
    errors: Multiple Moves, Invalid Move, Unsolvable Child;
  * at an unsolvable state it must be the parent; a valid child of the parent is a Sibling, anything else a
    Backtracking Failure;
  * no parsable state: Parse Error.
States are compared by the engine's key: Game-of-24 expression lists as multisets (order does not matter;
the official exact list comparison is a documented release defect) with ``+``/``*`` operands unordered;
Grid cells matched to their category's values. A documented quirk of the official scorer is reported but not
copied: repeating the current state at an unsolvable state is a Backtracking Failure here (official:
"sibling", see ``detail["official_error"]``). ``strict=True`` additionally counts any unsolvable child as
Unsolvable Child and refuses the release generator's Grid variants (see ``GridPuzzle.release_variants``).
This is the corrected scorer (``-O scoring=corrected``); the default, ``official``, scores every puzzle with
``score_official.score_st_official`` instead (exact list equality, the Game-of-24 ``str.replace`` move check,
the official Grid clue moves, the raw output read) and end-to-end answers with ``score_official_e2e``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.response import strip_think
from ...scoring.extract import clip
from . import prompts
from .engines.base import INVALID_MOVE, MULTIPLE_MOVES, SOLVABLE, UNSOLVABLE, Engine, StateError
from .engines.game24 import check_solution
from .engines.graphcoloring import GraphColoringEngine
from .engines.gridpuzzle import GridPuzzleEngine, GridState
from .label import EngineCache, state_of
from .literal import LiteralError, first_list

UNSOLVABLE_CHILD = "Unsolvable Child"
BACKTRACKING_FAILURE = "Backtracking Failure"
SIBLING = "Sibling"
PARSE_ERROR = "Parse Error"
ERROR_TYPES = (MULTIPLE_MOVES, INVALID_MOVE, UNSOLVABLE_CHILD, BACKTRACKING_FAILURE, SIBLING, PARSE_ERROR)

STALE_CHILD = "stale_unsolvable_child"  # the shown "explored next state" is not a child of current
HARDCODED_ANCESTOR_LABEL = "hardcoded_ancestor_label"  # an ST prompt calls an unsolvable ancestor Solvable


@dataclass
class Verdict:
    correct: bool
    extracted: str | None
    method: str
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return self.detail.get("error")

    def to_json(self) -> dict[str, Any]:
        return {"correct": self.correct, "extracted": self.extracted, "method": self.method, "detail": self.detail}


_CACHES: dict[str, EngineCache] = {}


def engine_for(puzzle: str, record: dict[str, Any]) -> Engine[Any, Any]:
    cache = _CACHES.get(puzzle)
    if cache is None or len(cache._engines) > 2000:
        cache = _CACHES[puzzle] = EngineCache(puzzle)
    return cache.get(record)


def _parent_state(engine: Engine[Any, Any], inp: dict[str, Any]) -> Any:
    if isinstance(engine, GridPuzzleEngine):
        path = inp["initial_to_current"]
        if len(path) < 2:
            return None
        return GridState(engine.p.coerce(path[-2]), tuple(inp["applied_clues"][:-1]))
    return None if inp.get("parent") is None else engine.from_json(inp["parent"])


# -- release defects ----------------------------------------------------------------------------------
def release_defects(puzzle: str, record: dict[str, Any]) -> list[str]:
    """Documented release defects that touch this state record (spec section 9):
    ``stale_unsolvable_child`` - the shown child is not one move from ``current`` (86 Sudoku states);
    ``hardcoded_ancestor_label`` - an ancestor the ST prompt labels Solvable is unsolvable."""
    eng = engine_for(puzzle, record)
    inp = record["inputs"]
    out = []
    cur = state_of(eng, record)
    child = state_of(eng, record, "unsolvable_child")
    fwd = (eng.check_forward(cur, child, release_compat=True) if isinstance(eng, GridPuzzleEngine)
           else eng.check_forward(cur, child))
    if fwd is not None:
        out.append(STALE_CHILD)
    if any(not eng.is_solvable(state) for state in _ancestors(eng, puzzle, inp)):
        out.append(HARDCODED_ANCESTOR_LABEL)
    return out


def _ancestors(eng: Engine[Any, Any], puzzle: str, inp: dict[str, Any]) -> list[Any]:
    """The ancestor states an ST prompt shows with a hard-coded Solvable label."""
    if isinstance(eng, GridPuzzleEngine):
        return [GridState(eng.p.coerce(table), ()) for table in inp["initial_to_current"][1:-1]]
    if puzzle == "game24":
        return [eng.from_json(inp["parent"])] if inp.get("grandparent") is not None else []
    return [eng.from_json(inp[k]) for k in ("grandparent", "parent") if inp.get(k) is not None]


# -- prompts ------------------------------------------------------------------------------------------
def build_prompt(puzzle: str, task: str, record: dict[str, Any],
                 options: prompts.PromptOptions = prompts.PromptOptions()) -> str:
    """The prompt for ``task`` in ``prompts.TASKS``: a state record for SC/ST, a question record for E2E."""
    inp = record["inputs"]
    if task == "e2e":
        return prompts.E2E[puzzle](inp)
    show_child = True
    if options.stale_child == "omit":
        show_child = STALE_CHILD not in release_defects(puzzle, record)
    if task == "state_checking":
        return prompts.SC[puzzle](inp, child=show_child)
    if task != "state_transition":
        raise ValueError(f"unknown task {task!r}; expected one of {prompts.TASKS}")
    status = record["outputs"]["current_status"]
    eng = engine_for(puzzle, record) if options.true_ancestor_labels else None

    def lab(state_json: Any) -> str:
        if eng is None or state_json is None:
            return SOLVABLE
        state = (GridState(eng.p.coerce(state_json), ()) if isinstance(eng, GridPuzzleEngine)
                 else eng.from_json(state_json))
        return SOLVABLE if eng.is_solvable(state) else UNSOLVABLE

    if puzzle == "gridpuzzle":
        return prompts.grid_st(inp, status, [lab(table) for table in inp["initial_to_current"]], child=show_child)
    ancestors = {"parent": lab(inp.get("parent")), "grandparent": lab(inp.get("grandparent"))}
    fn = {"sudoku": prompts.sudoku_st, "graphcoloring": prompts.gc_st, "game24": prompts.g24_st}[puzzle]
    return fn(inp, status, ancestors, child=show_child,
              official_grandparent=options.missing_grandparent == "official")


# -- state checking -----------------------------------------------------------------------------------
_LETTER = re.compile(r"\(\s*([AB])\s*\)")
_ANSWER = re.compile(r"answer\s*\**\s*[:：]", re.IGNORECASE)
_UNSOLV = re.compile(r"\b(?:unsolvable|uncolorable|uncolourable|not\s+solvable|not\s+colorable)\b", re.I)
_SOLV = re.compile(r"\b(?:solvable|colorable|colourable)\b", re.IGNORECASE)
_BARE = re.compile(r"\b([AB])\b")


def extract_sc(response: str) -> tuple[str | None, str]:
    """(label, method) from a state-checking answer."""
    text = clip(strip_think(response))
    letters = _LETTER.findall(text)
    if letters:
        return (SOLVABLE if letters[-1] == "A" else UNSOLVABLE), "last_letter"
    marks = list(_ANSWER.finditer(text))
    if marks:
        tail = text[marks[-1].end():]
        if _UNSOLV.search(tail):
            return UNSOLVABLE, "answer_label"
        if _SOLV.search(tail):
            return SOLVABLE, "answer_label"
        bare = _BARE.search(tail)
        if bare:
            return (SOLVABLE if bare.group(1) == "A" else UNSOLVABLE), "answer_letter"
    return None, "none"


def score_state_checking(record: dict[str, Any], response: str) -> Verdict:
    pred, method = extract_sc(response)
    gold = record["outputs"]["current_status"]
    return Verdict(pred == gold, pred, method, {"gold": gold})


@dataclass
class SCMetrics:
    n: int
    accuracy: float
    precision: float  # of "Unsolvable" predictions (positive class)
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tn: int
    unparsed: int

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def state_checking_metrics(golds: Sequence[str], preds: Sequence[str | None]) -> SCMetrics:
    """Accuracy and P/R/F1 with *Unsolvable* as the positive class (paper Tables 4 and 9). An unparsed
    prediction is wrong; it is never a positive prediction, so on an unsolvable state it is a false negative."""
    if len(golds) != len(preds):
        raise ValueError("golds and preds differ in length")
    tp = fp = fn = tn = unparsed = 0
    for gold, pred in zip(golds, preds, strict=True):
        if pred is None:
            unparsed += 1
        if gold == UNSOLVABLE:
            tp += pred == UNSOLVABLE
            fn += pred != UNSOLVABLE
        else:
            fp += pred == UNSOLVABLE
            tn += pred == SOLVABLE
    n = len(golds)
    correct = sum(gold == pred for gold, pred in zip(golds, preds, strict=True))
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return SCMetrics(n, correct / n if n else 0.0, prec, rec, f1, tp, fp, fn, tn, unparsed)


# -- state transition ---------------------------------------------------------------------------------
_NEXT = re.compile(r"next\s+state\s*\**\s*[:：]", re.IGNORECASE)
_SOLUTION = re.compile(r"solution\s*\**\s*[:：]", re.IGNORECASE)


def _after_last(marker: re.Pattern[str], text: str) -> str | None:
    marks = list(marker.finditer(text))
    return text[marks[-1].end():] if marks else None


def extract_state(response: str, marker: re.Pattern[str] = _NEXT) -> Any:
    """The first list literal after the last marker; raises LiteralError when there is none."""
    tail = _after_last(marker, clip(strip_think(response)))
    if tail is None:
        raise LiteralError("no 'Next state:' marker")
    return first_list(tail)


def score_state_transition(puzzle: str, record: dict[str, Any], response: str, strict: bool = False) -> Verdict:
    inp = record["inputs"]
    status = record["outputs"]["current_status"]
    eng = engine_for(puzzle, record)
    detail: dict[str, Any] = {"gold_status": status}

    def fail(error: str, official: str, extracted: str | None, **more: Any) -> Verdict:
        detail.update(error=error, official_error=official, **more)
        return Verdict(False, extracted, "next_state", detail)

    try:
        raw = extract_state(response)
    except LiteralError as exc:
        return fail(PARSE_ERROR, "parsing error", None, reason=str(exc))
    extracted = json.dumps(raw, ensure_ascii=False)
    try:
        pred = eng.from_json(raw)
    except (StateError, TypeError, ValueError) as exc:
        return fail(PARSE_ERROR, "parsing error", extracted, reason=str(exc))
    cur = state_of(eng, record)
    key = eng.key(pred)

    if status == SOLVABLE:
        err = (eng.check_forward(cur, pred, release_compat=not strict) if isinstance(eng, GridPuzzleEngine)
               else eng.check_forward(cur, pred))
        if err is not None:
            return fail(err, err.lower(), extracted)
        if key == eng.key(state_of(eng, record, "unsolvable_child")):
            return fail(UNSOLVABLE_CHILD, "unsolvable child", extracted)
        child_ok = eng.is_solvable(GridState(pred.table, cur.applied) if isinstance(pred, GridState) else pred)
        detail["child_solvable"] = child_ok
        if strict and not child_ok:
            return fail(UNSOLVABLE_CHILD, "", extracted, reason="an unexplored but unsolvable child")
        detail["error"] = None
        return Verdict(True, extracted, "next_state", detail)

    parent = _parent_state(eng, inp)
    if parent is not None and key == eng.key(parent):
        detail["error"] = None
        return Verdict(True, extracted, "next_state", detail)
    if key == eng.key(cur):
        return fail(BACKTRACKING_FAILURE, "sibling", extracted, reason="repeats the current state")
    if parent is not None:
        sib = (eng.check_forward(parent, pred, release_compat=not strict) if isinstance(eng, GridPuzzleEngine)
               else eng.check_forward(parent, pred))
        if sib is None:
            return fail(SIBLING, "sibling", extracted)
    grand = inp.get("grandparent")
    if grand is not None and not isinstance(eng, GridPuzzleEngine) and key == eng.key(eng.from_json(grand)):
        return fail(BACKTRACKING_FAILURE, "backtracking failure", extracted, reason="jumps back two levels")
    return fail(BACKTRACKING_FAILURE, "backtracking failure", extracted)


# -- end-to-end ---------------------------------------------------------------------------------------
_LATEX = [("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"), ("\\left", ""), ("\\right", ""),
          ("\\(", ""), ("\\)", ""), ("{", "("), ("}", ")")]


def extract_expression(response: str) -> str | None:
    """The arithmetic expression after the last ``Solution:`` (left of ``=``), markdown/LaTeX removed."""
    tail = _after_last(_SOLUTION, clip(strip_think(response)))
    if tail is None:
        return None
    line = tail.strip().split("\n", 1)[0]
    for _ in range(4):
        line = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", line)
    for latex, plain in _LATEX:
        line = line.replace(latex, plain)
    line = re.sub(r"\*\*|`|\$", " ", line).strip().rstrip(".").strip()
    sides = [side.strip() for side in line.split("=")]
    candidates = [side for side in sides if side and not re.fullmatch(r"24(?:\.0+)?", side)]
    return candidates[0] if candidates else None


def score_e2e(puzzle: str, record: dict[str, Any], response: str) -> Verdict:
    """End-to-end check of a whole solution (record: a question record)."""
    inp = record["inputs"]
    out = record.get("outputs") or {}
    if puzzle == "game24":
        expr = extract_expression(response)
        if expr is None:
            return Verdict(False, None, "solution", {"error": PARSE_ERROR})
        ok, reason = check_solution([int(x) for x in inp["initial_state"]], expr)
        return Verdict(ok, expr, "solution", {"reason": reason})
    try:
        raw = extract_state(response, _SOLUTION)
    except LiteralError as exc:
        return Verdict(False, None, "solution", {"error": PARSE_ERROR, "reason": str(exc)})
    extracted = json.dumps(raw, ensure_ascii=False)
    eng = engine_for(puzzle, record)
    try:
        if isinstance(eng, GraphColoringEngine):
            if not isinstance(raw, list) or any(isinstance(color, bool) or not isinstance(color, int)
                                                for color in raw):
                raise StateError("a coloring is a list of integers")
            ok = eng.is_proper_complete(raw)
            return Verdict(ok, extracted, "solution", {"reason": "valid coloring" if ok else "not a valid coloring"})
        pred = eng.from_json(raw)
    except (StateError, TypeError, ValueError) as exc:
        return Verdict(False, extracted, "solution", {"error": PARSE_ERROR, "reason": str(exc)})
    if isinstance(eng, GridPuzzleEngine):
        gold = out.get("solution")
        if gold is not None:
            ok = pred.table == eng.p.coerce(gold)
        else:
            ok = eng.is_goal(GridState(pred.table, tuple(eng.p.clues))) and all(
                cell != "" for row in pred.table for cell in row)
        return Verdict(ok, extracted, "solution", {"reason": "matches the solution" if ok else "differs"})
    gold = out.get("final")
    if gold is not None:
        ok = eng.key(pred) == eng.key(eng.from_json(gold))
    else:
        ok = eng.is_goal(pred)
    return Verdict(ok, extracted, "solution", {"reason": "matches the solution" if ok else "differs"})


def score(puzzle: str, task: str, record: dict[str, Any], response: str, **kwargs: Any) -> Verdict:
    """Dispatch to the scorer of ``task``."""
    if task == "state_checking":
        return score_state_checking(record, response)
    if task == "state_transition":
        return score_state_transition(puzzle, record, response, **kwargs)
    if task == "e2e":
        return score_e2e(puzzle, record, response)
    raise ValueError(f"unknown task {task!r}; expected one of {prompts.TASKS}")


def error_breakdown(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """Counts per ST error type (paper Fig. 4b)."""
    counts = dict.fromkeys(ERROR_TYPES, 0)
    for verdict in verdicts:
        if verdict.error:
            counts[verdict.error] = counts.get(verdict.error, 0) + 1
    return counts
