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
    configured,
    data_files,
    data_path,
    opt_str,
    read_records,
    req_str,
)
from ...core.types import Item
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
    if gold is None:
        solution = req_str(rec, ("solution",))
        gold = boxed(solution)
        if not gold:
            raise DataError(f"{rec.where('solution')}: no 'answer' field and no \\boxed{{}} in the solution")
    uid = opt_str(rec, ("unique_id", "id"))
    rid = Path(uid).stem if uid else str(index)
    meta = {"level": level_of(rec), "subject": SUBJECTS[subset]}
    return Item("math", subset, rid, {"problem": problem, "unique_id": uid, "_math": meta}, gold.strip())


def _local_files(option: str) -> list[Path]:
    root = data_path(option, "MATH", LAYOUT_HELP, "math")
    files = data_files(root)
    tests = [p for p in files if p.name.lower().startswith("test")]
    return tests if root.is_dir() and tests else files


def load_all(option: str | None, revision: str | None) -> list[Item]:
    """Every item of every subject, in file order (ids unique within a subject)."""
    if configured(option):
        files = _local_files(str(option))
    else:
        from ...hub import resolve_release

        files = list(resolve_release("math", "default", revision=revision).paths)
    if not files:
        raise DataError(f"{option}: no data files.\n{LAYOUT_HELP}")
    items: list[Item] = []
    seen: dict[str, Record] = {}
    for f in files:
        for rec in read_records(f):
            it = record_to_item(rec, len(items))
            if it.key in seen:
                raise DataError(f"{rec.where('unique_id')}: duplicate id {it.key!r} (first at {seen[it.key].where()})")
            seen[it.key] = rec
            items.append(it)
    return items
