"""What the official FineReason readers share (``score_official``, ``score_official_e2e``,
``score_official_grid``): the "correct" label, the Sudoku row pattern and the bounded Python-literal reader."""

from __future__ import annotations

import ast
import re
from typing import Any

OK = "1"  # the official "correct" label
SUDOKU_ROW = re.compile(r"\[(" + r",\s*".join([r"\d"] * 9) + r")\]")

MAX_LITERAL_CHARS = 100_000


def python_literal(text: str) -> Any:
    """``ast.literal_eval(text)``, as the official readers call it (``u'...'``, parenthesised and adjacent
    strings, triple quotes, ``# comments``, escapes: all Python literal syntax; no code is evaluated), on
    texts of at most :data:`MAX_LITERAL_CHARS` characters (a longer one raises ValueError, so the time is
    bounded: parsing is linear, and Python's own limits stop deep nesting and huge integers)."""
    if len(text) > MAX_LITERAL_CHARS:
        raise ValueError(f"literal of {len(text)} characters (limit {MAX_LITERAL_CHARS})")
    return ast.literal_eval(text)
