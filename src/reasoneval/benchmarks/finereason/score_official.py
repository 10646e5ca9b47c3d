"""FineReason's state-checking answer extraction exactly as the official ``prompting.get_answer`` reads it
(``-O scoring=official``), beside today's corrected reading (``tasks.extract_sc``, the default).

Official behaviour, each a difference from the corrected reader:

* the raw completion is read: no ``<think>`` section is removed (a label inside the reasoning counts);
* the last ``(A)`` / ``(B)`` wins, written exactly so (no spaces inside the parentheses);
* otherwise the text after the last ``Answer:`` is read, and when there is no such marker, the whole text;
* the words are case-sensitive and ``Solvable`` (``Colorable``) is tested *before* ``Unsolvable``
  (``Uncolorable``) by substring, so "Not Solvable" reads as Solvable while "unsolvable" is not a label;
* the letter fallback is a substring test: any capital ``A`` in the text means Solvable, else any ``B``
  Unsolvable.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.benchmark import Table
from ...core.types import Verdict
from .engines.base import SOLVABLE, UNSOLVABLE

_LETTER = re.compile(r"\(([AB])\)")


def extract_sc_official(response: str) -> tuple[str | None, str]:
    """(label, method) as the official evaluator extracts it."""
    letters = _LETTER.findall(response)
    if letters:
        return (SOLVABLE if letters[-1] == "A" else UNSOLVABLE), "official_last_letter"
    tail = response.split("Answer:")[-1]
    if "Solvable" in tail or "Colorable" in tail:
        return SOLVABLE, "official_word"
    if "Unsolvable" in tail or "Uncolorable" in tail:
        return UNSOLVABLE, "official_word"
    if "A" in tail:
        return SOLVABLE, "official_letter"
    if "B" in tail:
        return UNSOLVABLE, "official_letter"
    return None, "none"


def scoring_diff_table(title: str, groups: list[tuple[str, list[Verdict | None]]], chosen: str) -> Table | None:
    """Per puzzle: accuracy under the chosen reading and under the other one (kept in
    ``detail["other_scoring"]``), and how many answers the two read differently. None when no verdict
    carries the other reading (runs scored before the option existed)."""
    other = "corrected" if chosen == "official" else "official"
    rows: list[list[Any]] = []
    for name, vs in groups:
        scored = [v for v in vs if v is not None and v.outcome.value != "error" and "other_scoring" in v.detail]
        if not scored:
            continue
        here = sum(v.correct for v in scored)
        there = sum(v.detail["other_scoring"] == v.detail.get("gold") for v in scored)
        differ = sum(v.detail["other_scoring"] != v.extracted for v in scored)
        n = len(scored)
        rows.append([name, n, round(100 * here / n, 2), round(100 * there / n, 2), round(100 * (here - there) / n, 2),
                     differ])
    if not rows:
        return None
    return Table(title, ["puzzle", "n", f"accuracy ({chosen})", f"accuracy ({other})", "difference", "answers read differently"],
                 rows, [f"scoring={chosen} is this run's; the {other} reading of the same completions is shown beside "
                        "it (official: the official get_answer exactly; corrected: think removed, whole-word labels)."])
