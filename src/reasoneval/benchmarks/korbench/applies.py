"""Which (subset, mode) pairs KOR-Bench runs: the five categories in the category protocols (Puzzle also with the
trick hint), the mixed sets in ``mixed``, the cipher sub-questions in ``subquestions``."""

from __future__ import annotations

from .data import CATEGORIES, MIXED_SETS
from .outside import SUBQ

CATEGORY_MODES = ("zero-shot", "three-shot", "self-correction", "self-correction-with-needle",
                  "only-questions-zero-shot", "only-questions-three-shot")  # fmt: skip


def applies(subset: str, mode: str) -> bool:
    if subset in CATEGORIES:
        return mode in CATEGORY_MODES or (mode == "trick" and subset == "puzzle")
    if subset in MIXED_SETS:
        return mode == "mixed"
    return subset == SUBQ and mode == "subquestions"
