"""FineReason's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reasoneval.core.options import BenchOptions


@dataclass(frozen=True)
class FROptions(BenchOptions):
    """``data``: a folder with files named like the release (``<puzzle>_states.json`` /
    ``<puzzle>_questions.json``); ``true_ancestor_labels`` / ``stale_child``: the prompt defect fixes of
    ``prompts.PromptOptions`` (defaults: the official prompts); ``strict``: the strict state-transition
    scorer (default: the official criterion); ``scoring``: how answers are read, ``corrected`` (default:
    think sections removed, whole-word and case-insensitive labels, states compared as states) or
    ``official`` (the official ``get_answer`` / ``is_next_state`` exactly, see ``score_official``: state
    checking, and state transition for Sudoku, Graph Coloring and Game of 24, its ``str.replace`` move
    check included; it also renders a null grandparent in the ST prompt as ``S(i-2) = None``, as the official
    templates do)."""

    true_ancestor_labels: bool = False
    stale_child: Literal["keep", "omit"] = "keep"
    strict: bool = False
    scoring: Literal["corrected", "official"] = "corrected"
