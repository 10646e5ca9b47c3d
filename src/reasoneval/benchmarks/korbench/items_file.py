"""Category items from one JSON-lines file (``reasoneval run korbench:cipher --data items.jsonl``).

Each line is a question in the release ``sample.jsonl`` schema (``idx, question, answer, rule_id`` and,
per category, ``category``/``trick``/``real_life_answer``). An item that carries ``rule_content`` (as
generated cipher items with new parameters do) is prompted with that rule text; otherwise the packaged
rule of its ``rule_id`` is used. The category is the line's ``subset`` field when present; cipher items
(``category`` Encryption/Decryption) are recognised; other lines need ``subset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasoneval.core.errors import DataError
from reasoneval.core.hashing import sha256_text
from reasoneval.core.jsonl import iter_jsonl

from .data import CATEGORIES, KorData, Question

_DIRECTIONS = ("Encryption", "Decryption")


@dataclass(frozen=True)
class FileQuestion:
    question: Question
    rule_content: str  # the item's own rule text, else the packaged rule's
    title: str | None
    own_rule: bool


def _category(rec: dict[str, Any], path: Path, line: int) -> str:
    sub = rec.get("subset")
    if sub is not None:
        if sub not in CATEGORIES:
            raise DataError(path, line, f"subset {sub!r} is not a KOR-Bench category ({', '.join(CATEGORIES)})")
        return str(sub)
    if rec.get("category") in _DIRECTIONS:
        return "cipher"
    if rec.get("category") in CATEGORIES:
        return str(rec["category"])
    raise DataError(path, line, "cannot tell the item's category: add a 'subset' field "
                                f"({', '.join(CATEGORIES)})")


def read_items_file(path: str | Path, packaged: KorData) -> dict[str, dict[str, FileQuestion]]:
    """Questions by category, then idx; every line validated (``DataError`` names file and line)."""
    p = Path(path)
    out: dict[str, dict[str, FileQuestion]] = {c: {} for c in CATEGORIES}
    for line, rec in iter_jsonl(p, DataError):
        cat = _category(rec, p, line)
        q = KorData._question(cat, rec, p, line)
        own = rec.get("rule_content")
        if own is not None and not isinstance(own, str):
            raise DataError(p, line, "field 'rule_content' must be a string")
        known = packaged.rules(cat).get(q.rule_id)
        if own is None and known is None:
            raise DataError(p, line, f"rule_id {q.rule_id!r} is not a packaged {cat} rule and the item has "
                                     "no 'rule_content'")
        if q.idx in out[cat]:
            raise DataError(p, line, f"duplicate {cat} idx {q.idx!r}")
        title = rec.get("title") if isinstance(rec.get("title"), str) else (known.title if known else None)
        content = own if own is not None else known.content  # type: ignore[union-attr]
        out[cat][q.idx] = FileQuestion(q, content, title, own is not None)
    return out


def file_version(path: str | Path) -> str:
    """The data version of an items file: a hash of its content (not of its name or place)."""
    return "file:" + sha256_text(Path(path).read_text(encoding="utf-8"))[:16]
