"""GSM8K data: the Hub release's ``main`` test split, or ``--data`` (a file, or a folder of files).

Fields: ``question`` and ``answer`` (the worked solution ending in ``#### <number>``, as released; a bare number
is accepted too), optionally ``id``. Items are numbered by their row in the split (0-based, as the Hub viewer and
``datasets`` index them) unless a row has an ``id``.
"""

from __future__ import annotations

from ...core.records import (
    DataError,
    Record,
    opt_str,
    req_str,
)
from ...core.values import Item
from ...hub.split_items import split_files, unique_items
from ...scoring.math_answer import plain_number

LAYOUT_HELP = ("Expected: the Parquet/JSONL files of the Hugging Face dataset openai/gsm8k (config main; in a "
               "folder, files named test* are taken) or one JSONL file with fields question, answer "
               "('... #### 72' or '72'), [id].")
_ID = ("id", "index")


def gold_of(rec: Record) -> str:
    """The number after the last ``####`` (thousands separators removed), or a bare number."""
    raw = req_str(rec, ("answer",), allow_number=True)
    tail = raw.rpartition("####")[2] if "####" in raw else raw
    num = plain_number(tail.strip())
    if num is None:
        raise DataError(f"{rec.where('answer')}: no number after '####' (got {tail.strip()[:60]!r})")
    return format(num.normalize(), "f") if num == num.to_integral_value() else str(num)


def record_to_item(rec: Record, index: int) -> Item:
    question = req_str(rec, ("question",))
    rid = opt_str(rec, _ID) or str(index)
    return Item("gsm8k", "main", rid, {"question": question, "answer": rec.data.get("answer")}, gold_of(rec))


def load_items(option: str | None, revision: str | None) -> list[Item]:
    files = split_files(option, "gsm8k", "main", revision, "GSM8K", LAYOUT_HELP)
    count = iter(range(1 << 62))
    return unique_items(files, lambda rec: record_to_item(rec, next(count)), "id")
