"""End-to-end solving read as the official ``*EndToEndPrompter.get_answer`` methods read it
(``-O scoring=official``, the default). Written from a reading of ``DAMO-NLP-SG/FineReason`` ``prompting.py``
and ``graphcoloring_tree.py``; no code is taken from it.

Every puzzle reads the raw output (``<think>`` included, an unclosed one too) after the last ``Solution:``
(case-sensitive), or the whole text when there is no such marker:

* **Sudoku**: the last nine ``[d, d, ..., d]`` rows of single digits anywhere in that text (rows need no
  outer brackets; a grid restated after the solution is the one read) must equal the released solution;
* **Graph Coloring**: *every* integer in that text, which must be as many as the vertices (a remark such as
  "(3 colours)" breaks it: ``invalid coloring``; ``no coloring found`` without any), use at most k
  non-zero colours (``too many colors``) and give no two adjacent *coloured* vertices the same colour: an
  uncoloured vertex (0) is skipped, so an incomplete colouring passes, as upstream;
* **Game of 24**: the text after the last ``**Solution:**`` and then ``Solution:``, stripped, left of the
  first ``=`` (so ``24 = expr`` reads ``24``), with ``\\(``, ``\\[``, ``\\{`` removed and ``\\times`` /
  ``\\div`` replaced; its integers (``re.findall(r"\\d+")``) must be the four numbers (``different
  numbers``); then ``sympy.simplify(expr) == 24``, reproduced without SymPy by :mod:`.g24_value` (``×``,
  ``÷``, ``$`` and markdown ``**`` are parsing errors there, as in SymPy);
* **Grid**: the newlines removed, the last ``[[ ... ]]`` (``\\[\\s*\\[.*?\\]\\s*\\]``) read by
  ``ast.literal_eval`` must equal the released solution exactly, so ``"9"`` is not ``9``.

The labels are the official ones: ``"1"`` (correct), ``"0"``, ``"parsing error"``, ``"different numbers"``,
``"no coloring found"``, ``"invalid coloring"``, ``"too many colors"``, plus ``"unsupported"`` for a Game-of-24
expression outside what :mod:`.g24_value` reproduces.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .g24_value import sympy_equals_24
from .score_official_base import OK, SUDOKU_ROW, python_literal
from .tasks import PARSE_ERROR
from .tasks import Verdict as TaskVerdict

_DIGITS = re.compile(r"\d+")
_LATEX = (("\\(", ""), ("\\[", ""), ("\\{", ""), ("\\times", "*"), ("\\div", "/"))


def _tail(text: str) -> str:
    return text.split("Solution:")[-1]


def last_table(text: str) -> str | None:
    """The last match of ``re.findall(r"\\[\\s*\\[.*?\\]\\s*\\]", text, re.DOTALL)``, in linear time (the
    lazy regex rescans to the end of the text from every ``[[`` that no ``]]`` follows)."""
    n = len(text)
    # closer[k]: the end of the first "]\s*]" whose first "]" is at k or later
    closer = [-1] * (n + 1)
    for i in range(n - 1, -1, -1):
        end = -1
        if text[i] == "]":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] == "]":
                end = j + 1
        closer[i] = end if end >= 0 else closer[i + 1]
    pos, last = 0, None
    while True:
        i = text.find("[", pos)
        if i < 0:
            return last
        k = i + 1
        while k < n and text[k].isspace():
            k += 1
        if k >= n or text[k] != "[":
            pos = i + 1
            continue
        end = closer[k + 1]
        if end < 0:
            return last
        last, pos = text[i:end], end


def _sudoku(record: dict[str, Any], text: str) -> tuple[str, Any]:
    grid = [[int(x.strip()) for x in row.split(",")] for row in SUDOKU_ROW.findall(_tail(text))[-9:]]
    return (OK if grid == record["outputs"]["final"] else "0"), (grid or None)


def _graphcoloring(record: dict[str, Any], text: str) -> tuple[str, Any]:
    coloring = [int(x) for x in _DIGITS.findall(_tail(text))]
    if not coloring:
        return "no coloring found", None
    graph = record["inputs"]["graph"]
    if len(coloring) != len(graph):
        return "invalid coloring", coloring
    if len({c for c in coloring if c != 0}) > record["inputs"]["chromatic_number"]:
        return "too many colors", coloring
    for v, neighbours in enumerate(graph):
        if coloring[v] != 0 and any(coloring[u] == coloring[v] for u in neighbours):
            return "0", coloring
    return OK, coloring


def g24_expression(text: str) -> str:
    """The expression the official Game-of-24 reader hands to SymPy."""
    expr = text.split("**Solution:**")[-1].split("Solution:")[-1].strip().split("=")[0]
    for a, b in _LATEX:
        expr = expr.replace(a, b)
    return expr


def _game24(record: dict[str, Any], text: str) -> tuple[str, Any]:
    expr = g24_expression(text)
    numbers = sorted(int(x) for x in _DIGITS.findall(expr))
    if numbers != sorted(int(x) for x in record["inputs"]["initial_state"]):
        return "different numbers", expr
    return sympy_equals_24(expr), expr


def _gridpuzzle(record: dict[str, Any], text: str) -> tuple[str, Any]:
    table = last_table(_tail(text).replace("\n", ""))
    if table is None:
        return "parsing error", None
    try:
        value = python_literal(table)
    except Exception:  # the official reader catches everything (a bare except)
        return "parsing error", None
    return (OK if value == record["outputs"]["solution"] else "0"), value


_READERS = {"sudoku": _sudoku, "graphcoloring": _graphcoloring, "game24": _game24, "gridpuzzle": _gridpuzzle}


def official_e2e_label(puzzle: str, record: dict[str, Any], response: str) -> tuple[str, Any]:
    """(the official label, ``"1"`` when correct; what it read, or None)."""
    try:
        return _READERS[puzzle](record, response)
    except Exception:  # the official readers catch everything (a bare except)
        return "parsing error", None


def extracted_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


_UNREAD = {"parsing error", "no coloring found", "invalid coloring"}


def score_e2e_official(puzzle: str, record: dict[str, Any], response: str) -> TaskVerdict:
    """The official end-to-end verdict of ``response`` (the raw completion). Nothing read (a parsing error,
    no or too few integers for a colouring, no Sudoku row) is a Parse Error, as the corrected scorer names it;
    the official label is in ``detail["official_error"]`` unless it is ``"1"``."""
    label, value = official_e2e_label(puzzle, record, response)
    detail: dict[str, Any] = {"error": PARSE_ERROR if label in _UNREAD or value is None else None}
    if label != OK:
        detail["official_error"] = label
    return TaskVerdict(label == OK, extracted_text(value), "official_solution", detail)
