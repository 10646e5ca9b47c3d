"""General365 data: the Hugging Face release ``meituan-longcat/General365_Public`` from disk.

Point ``--data`` (``-O data=``) at the downloaded dataset folder or at one file;
every ``*.parquet``, ``*.jsonl`` and ``*.json`` under it is read (HF metadata files are skipped).

Release fields: ``id``, ``question``, ``answer``, ``answer_type`` (number | interval | text |
single_choice | multiple_choice) and ``float_round`` (minimum decimal places; string or int; 0 or
empty = not annotated). Optional fields this harness understands (own data in JSONL)::

    {"id": "s12-v1", "question": "...", "answer": "420", "answer_type": "number", "float_round": 0,
     "categories": ["Complex Constraints", "Branching & Enumeration"],  # or "category": "A; B"
     "seed_id": "s12", "is_seed": false, "variant": 1}

Seeds and variants are linked by ``seed_id`` (and/or ``is_seed`` / ``variant`` with 0 = seed). Where
only the ids encode it, set option ``seed_pattern`` (``-O seed_pattern=...``) to a
regular expression with a named group ``seed`` (and optionally ``variant``), e.g.
``^(?P<seed>\\d+)_(?P<variant>\\d+)$``.
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
from ...core.values import Item
from .paper_meta import canonical

ANSWER_TYPES = ("number", "interval", "text", "single_choice", "multiple_choice")
NUMERIC_TYPES = ("number", "interval")
CHOICE_TYPES = ("single_choice", "multiple_choice")
_TYPE_ALIASES = {"numerical": "number", "numeric": "number", "select": "multiple_choice",
                 "choice": "multiple_choice", "single-choice": "single_choice",
                 "multiple-choice": "multiple_choice", "multi_choice": "multiple_choice"}
_CAT_KEYS = ("categories", "category", "challenges", "challenge", "labels", "tags")
_CAT_SPLIT = re.compile(r"\s*[;,|；，、]\s*")
LAYOUT_HELP = (
    "Expected: the Hugging Face dataset folder meituan-longcat/General365_Public (Parquet or JSON/JSONL "
    "files with fields id, question, answer, answer_type, float_round), or one such file.")


def _answer_type(rec: Record) -> str:
    raw = req_str(rec, ("answer_type",)).strip().lower()
    t = _TYPE_ALIASES.get(raw, raw)
    if t not in ANSWER_TYPES:
        raise DataError(f"{rec.where('answer_type')} is {raw!r}; expected one of {', '.join(ANSWER_TYPES)}")
    return t


def _float_round(rec: Record) -> int | None:
    v = rec.data.get("float_round")
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if isinstance(v, bool):
        raise DataError(f"{rec.where('float_round')} must be an integer, got a boolean")
    k: int | None
    if isinstance(v, float):
        k = int(v) if v.is_integer() else None
    else:
        try:
            k = int(str(v).strip())
        except ValueError:
            k = None
    if k is None or k < 0:
        raise DataError(f"{rec.where('float_round')} is {v!r}; expected a non-negative integer")
    return k


def _categories(rec: Record) -> list[str]:
    key = next((k for k in _CAT_KEYS if rec.data.get(k) is not None), None)
    if key is None:
        return []
    v = rec.data[key]
    if isinstance(v, str):
        return [canonical(c) for c in _CAT_SPLIT.split(v.strip()) if c]
    if isinstance(v, list) and all(isinstance(c, str) for c in v):
        return [canonical(c.strip()) for c in v if c.strip()]
    raise DataError(f"{rec.where(key)} must be a string or a list of strings")


def _seed_link(rec: Record, rid: str, pattern: re.Pattern[str] | None) -> tuple[str | None, bool | None]:
    seed_id = opt_str(rec, ("seed_id", "seed", "parent_id"))
    is_seed: bool | None = None
    if isinstance(rec.data.get("is_seed"), bool):
        is_seed = rec.data["is_seed"]
    variant = rec.data.get("variant", rec.data.get("variant_index"))
    if variant is not None and is_seed is None:
        try:
            is_seed = int(variant) == 0
        except (TypeError, ValueError) as e:
            raise DataError(f"{rec.where('variant')} is {variant!r}; expected an integer (0 = seed)") from e
    if pattern is not None and seed_id is None:
        m = pattern.match(rid)
        if m:
            seed_id = m.group("seed")
            if is_seed is None and "variant" in pattern.groupindex and m.group("variant") is not None:
                is_seed = int(m.group("variant")) == 0
    if seed_id is not None and is_seed is None and seed_id == rid:
        is_seed = True
    return seed_id, is_seed


def record_to_item(rec: Record, pattern: re.Pattern[str] | None = None) -> Item:
    rid = req_str(rec, ("id",), allow_number=True).strip()
    question = req_str(rec, ("question",))
    answer = req_str(rec, ("answer",), allow_number=True).strip()
    seed_id, is_seed = _seed_link(rec, rid, pattern)
    meta: dict[str, Any] = {
        "question": question,
        "answer_type": _answer_type(rec),
        "float_round": _float_round(rec),
        "categories": _categories(rec),
        "seed_id": seed_id,
        "is_seed": is_seed,
    }
    data = dict(rec.data)
    data["_g365"] = meta
    return Item("general365", "test", rid, data, gold=answer)


def seed_pattern(option: str | None = None) -> re.Pattern[str] | None:
    raw = option
    if not raw:
        return None
    try:
        pat = re.compile(raw)
    except re.error as e:
        raise DataError(f"seed pattern {raw!r} is not a valid regular expression: {e}") from e
    if "seed" not in pat.groupindex:
        raise DataError(f"seed pattern {raw!r} needs a named group (?P<seed>...)")
    return pat


def items_from_records(records: list[Record], pattern: re.Pattern[str] | None = None) -> list[Item]:
    items: list[Item] = []
    seen: dict[str, Record] = {}
    for rec in records:
        it = record_to_item(rec, pattern)
        if it.id in seen:
            raise DataError(f"{rec.where('id')}: duplicate id {it.id!r} (first at {seen[it.id].where()})")
        seen[it.id] = rec
        items.append(it)
    return items


def load(root_option: str | None = None, seed_pattern_option: str | None = None,
         revision: str | None = None) -> list[Item]:
    """Items from ``root_option`` (``--data``), else from the Hub release at ``revision`` (default: pinned)."""
    if not configured(root_option):  # no local copy: the pinned Hub release (reasoneval.hub)
        from ...hub import resolve_release

        files = list(resolve_release("general365", revision=revision).paths)
        records = [r for f in files for r in read_records(f)]
        return items_from_records(records, seed_pattern(seed_pattern_option))
    root = data_root(root_option)
    files = data_files(root)
    if not files:
        raise DataError(f"{root}: no .parquet, .jsonl or .json files.\n{LAYOUT_HELP}")
    records = [r for f in files for r in read_records(f)]
    return items_from_records(records, seed_pattern(seed_pattern_option))


def data_root(root_option: str | None = None) -> Path:
    return data_path(root_option, "General365", LAYOUT_HELP, "general365")
