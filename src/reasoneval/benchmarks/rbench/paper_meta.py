"""The paper's department/subject tables (Tables 8 and 9), shipped as ``data/paper_tables.json`` with their
provenance, and what can be derived from them reliably.

The public release (``R-Bench/R-Bench``: index, question, A-F, answer, image) carries no department or
subject, and no key in it links an item to a table row, so the per-department and per-subject breakdowns
cannot be rebuilt from the release alone. What *is* reliable: when a row carries a subject but no department
(own data, or a future release), the department follows from the subject wherever that subject name occurs
in exactly one department of the split (4 duplicated names in T, 4 in M stay undetermined).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

TABLES = Path(__file__).parent / "data" / "paper_tables.json"


def norm(name: str) -> str:
    """Names compared without case, spaces or punctuation (the PDF lost the spaces: "FluidMechanics")."""
    return re.sub(r"[^0-9a-z\u4e00-\u9fff]", "", name.lower())


@functools.lru_cache(maxsize=1)
def tables() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLES.read_text(encoding="utf-8"))
    return data


@functools.lru_cache(maxsize=2)
def _subject_index(split: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for dept in tables()["splits"][split]:
        for s in dept["subjects"]:
            out.setdefault(norm(s["subject"]), []).append(dept["department"])
    return out


def department_of(split: str, subject: str | None) -> str | None:
    """The paper's department of ``subject`` in split ``T``/``M`` when the name is unique there, else None."""
    if not subject or split not in tables()["splits"]:
        return None
    depts = _subject_index(split).get(norm(subject), [])
    return depts[0] if len(depts) == 1 else None


def paper_counts(split: str) -> dict[str, int]:
    """Questions per department in the paper's table for ``split`` (to check a release against)."""
    return {d["department"]: sum(s["questions"] for s in d["subjects"]) for d in tables()["splits"][split]}
