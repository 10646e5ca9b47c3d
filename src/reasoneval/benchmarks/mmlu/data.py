"""MMLU data: ``cais/mmlu`` config ``all`` (test split) from the Hub, or ``--data`` (a file, or a folder).

Fields as released: ``question``, ``subject`` (one of the 57, e.g. ``abstract_algebra``), ``choices`` (four
strings) and ``answer`` (0-3, or a letter A-D), optionally ``id``. Items are numbered by their row within their
subject (0-based, the order of the release). Subsets are the 57 subjects.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...core.records import (
    DataError,
    Record,
    opt_str,
    req_str,
)
from ...core.values import Item
from ...hub.split_items import split_files, unique_items
from .categories import SUBJECTS, category_of
from .prompts import LETTERS

LAYOUT_HELP = ("Expected: the files of the Hugging Face dataset cais/mmlu (config all; in a folder, files named "
               "test* are taken) or one JSONL file with fields question, subject, choices (4 strings), answer "
               "(0-3 or A-D), [id].")


def _choices(rec: Record) -> list[str]:
    raw: Any = rec.data.get("choices")
    if hasattr(raw, "tolist"):
        raw = raw.tolist()
    if not isinstance(raw, list) or len(raw) != 4 or not all(isinstance(c, str | int | float) for c in raw):
        raise DataError(f"{rec.where('choices')} must be a list of four strings")
    return [str(c) for c in raw]


def _answer(rec: Record) -> str:
    raw: Any = rec.data.get("answer")
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < 4:
        return LETTERS[raw]
    if isinstance(raw, str) and raw.strip().upper() in LETTERS and raw.strip():
        return raw.strip().upper()
    if isinstance(raw, str) and raw.strip() in ("0", "1", "2", "3"):
        return LETTERS[int(raw.strip())]
    raise DataError(f"{rec.where('answer')} is {raw!r}; expected 0-3 or A-D")


def record_to_item(rec: Record, index: int) -> Item:
    question = req_str(rec, ("question",))
    subject = req_str(rec, ("subject",)).strip()
    if subject not in SUBJECTS:
        raise DataError(f"{rec.where('subject')}: unknown MMLU subject {subject!r} (57 known, e.g. abstract_algebra)")
    rid = opt_str(rec, ("id",)) or str(index)
    meta = {"subject": subject, "category": category_of(subject)}
    return Item("mmlu", subject, rid, {"question": question, "choices": _choices(rec), "_mmlu": meta}, _answer(rec))


def load_all(option: str | None, revision: str | None) -> list[Item]:
    files = split_files(option, "mmlu", "all", revision, "MMLU", LAYOUT_HELP)
    per_subject: Counter[str] = Counter()

    def to_item(rec: Record) -> Item:  # ids count within a subject
        subject = str(rec.data.get("subject") or "").strip()
        it = record_to_item(rec, per_subject[subject])
        per_subject[subject] += 1
        return it

    return unique_items(files, to_item, "id")
