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
    scorer (default: the official criterion); ``scoring``: state-checking answer extraction, ``corrected``
    (default: think sections removed, whole-word and case-insensitive labels) or ``official`` (the official
    ``get_answer`` exactly, see ``score_official``)."""

    true_ancestor_labels: bool = False
    stale_child: Literal["keep", "omit"] = "keep"
    strict: bool = False
    scoring: Literal["corrected", "official"] = "corrected"
