"""The paper's eight challenge categories (§2, Table 1 column order and short names).

The public release (``meituan-longcat/General365_Public``: id, question, answer, answer_type, float_round)
carries neither category labels nor seed/variant links, and no field or id scheme documented by the paper
derives them, so the per-category table and the seeds-vs-variants table appear only for data that carries
``categories`` / ``seed_id`` (or ids matching ``seed_pattern``). Labels that are present are mapped onto the
paper's names here, so the table uses the paper's columns whatever spelling the data uses.
"""

from __future__ import annotations

import re

#: Table 1 short name -> the category's full name in §2 (paper order)
CATEGORIES: dict[str, str] = {
    "Complex Constraints": "Complex Constraints",
    "Branching & Enumeration": "Branching & Enumeration",
    "Spatial & Temporal": "Spatial & Temporal Reasoning",
    "Recursive & Backtracking": "Recursive & Backtracking",
    "Semantic Interference": "Semantic Interference",
    "Implicit Information": "Implicit Information Reasoning",
    "Optimal Strategy": "Optimal Strategy",
    "Probability & Uncertainty": "Probability & Uncertainty",
}


def _key(name: str) -> str:
    k = re.sub(r"\band\b", "&", name.lower())
    k = re.sub(r"\breasoning\b", "", k)
    return re.sub(r"[^a-z&]", "", k)


_INDEX = {_key(v): short for short, v in CATEGORIES.items()} | {_key(s): s for s in CATEGORIES}


def canonical(label: str) -> str:
    """The paper's short name for a category label (``"spatial and temporal reasoning"`` ->
    ``"Spatial & Temporal"``); other labels are kept as given."""
    return _INDEX.get(_key(label), label)
