"""FineReason's typed options (``-O key=value``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from reasoneval.core.options import BenchOptions

#: the options a stored run record held before ``scoring`` existed (its answers were read the corrected way)
OPTIONS_BEFORE_SCORING = ("data", "true_ancestor_labels", "stale_child", "strict")


@dataclass(frozen=True)
class FROptions(BenchOptions):
    """``data``: a folder with files named like the release (``<puzzle>_states.json`` /
    ``<puzzle>_questions.json``); ``true_ancestor_labels`` / ``stale_child``: the prompt defect fixes of
    ``prompts.PromptOptions`` (defaults: the official prompts); ``strict``: the strict state-transition
    scorer (default: the official criterion); ``scoring``: how answers are read, ``official`` (default: the
    official ``get_answer`` / ``is_next_state`` exactly, see ``score_official`` and ``score_official_e2e``:
    state checking, state transition (``score_official_grid`` for Grid), end-to-end solving; it also
    renders a null grandparent in the ST prompt as ``S(i-2) = None``, as the official templates do) or
    ``corrected`` (think sections removed, whole-word and case-insensitive labels, states compared as
    states, solutions checked by the puzzle's rules).

    ``scoring`` is always part of the run id (:meth:`identity`): its default was ``corrected`` until the
    paper's reading became the default, so a run id without it stands for a corrected run."""

    true_ancestor_labels: bool = False
    stale_child: Literal["keep", "omit"] = "keep"
    strict: bool = False
    scoring: Literal["official", "corrected"] = "official"

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "scoring": self.scoring}


def stored_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a stored run record: one recorded before ``scoring`` existed (every earlier option,
    no ``scoring``) was read the corrected way, then the only one."""
    out = dict(values)
    if "scoring" not in out and all(k in out for k in OPTIONS_BEFORE_SCORING):
        out["scoring"] = "corrected"
    return out
