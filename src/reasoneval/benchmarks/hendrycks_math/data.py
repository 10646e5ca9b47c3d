r"""MATH data: MATH-500 from the Hub, or ``--data`` (a file, or a folder of files; the full test set works).

Fields: ``problem``; the gold ``answer`` (MATH-500), else the last ``\boxed{}`` of ``solution`` (the original
release); ``level`` (``3`` or ``"Level 3"``; ``"Level ?"`` is kept as unknown); ``subject`` or ``type``
(``"Counting & Probability"``); optionally ``unique_id`` (``test/algebra/1234.json``) or ``id``.
Subsets are the seven subjects.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.records import (
    DataError,
    Record,
    opt_str,
    req_str,
)
from ...core.values import Item
from ...hub.split_items import split_files, unique_items
from ...scoring.extract import boxed

SUBJECTS = {  # subset -> the subject as the releases write it
    "algebra": "Algebra",
    "counting_and_probability": "Counting & Probability",
    "geometry": "Geometry",
    "intermediate_algebra": "Intermediate Algebra",
    "number_theory": "Number Theory",
    "prealgebra": "Prealgebra",
    "precalculus": "Precalculus",
}
LEVELS = (1, 2, 3, 4, 5)
LAYOUT_HELP = ("Expected: the files of HuggingFaceH4/MATH-500 (test.jsonl) or of the full MATH test set "
               "(EleutherAI/hendrycks_math; in a folder, files named test* are taken): fields problem, answer "
               "or solution (with \\boxed{}), level, subject or type, [unique_id].")


def subset_of(subject: str) -> str | None:
    key = re.sub(r"[^a-z]+", "_", subject.lower().replace("&", "and")).strip("_")
    return key if key in SUBJECTS else None


def level_of(rec: Record) -> int | None:
    raw: Any = rec.data.get("level")
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw if raw in LEVELS else None
    m = re.fullmatch(r"\s*(?:level\s*)?(\d)\s*", str(raw or ""), re.IGNORECASE)
    return int(m.group(1)) if m and int(m.group(1)) in LEVELS else None


def record_to_item(rec: Record, index: int) -> Item:
    problem = req_str(rec, ("problem", "question"))
    subject = req_str(rec, ("subject", "type"))
    subset = subset_of(subject)
    if subset is None:
        raise DataError(f"{rec.where('subject')}: unknown MATH subject {subject!r}; known: "
                        f"{', '.join(SUBJECTS.values())}")
    gold = opt_str(rec, ("answer",))
    solution = opt_str(rec, ("solution",))
    if gold is None:
        solution = req_str(rec, ("solution",))
        gold = boxed(solution)
        if not gold:
            raise DataError(f"{rec.where('solution')}: no 'answer' field and no \\boxed{{}} in the solution")
    uid = opt_str(rec, ("unique_id", "id"))
    rid = Path(uid).stem if uid else str(index)
    meta = {"level": level_of(rec), "subject": SUBJECTS[subset]}
    return Item("math", subset, rid, {"problem": problem, "unique_id": uid, "solution": solution, "_math": meta},
                gold.strip())


def load_all(option: str | None, revision: str | None) -> list[Item]:
    """Every item of every subject, in file order (ids unique within a subject)."""
    files = split_files(option, "math", "default", revision, "MATH", LAYOUT_HELP)
    count = iter(range(1 << 62))
    return unique_items(files, lambda rec: record_to_item(rec, next(count)), "unique_id")
