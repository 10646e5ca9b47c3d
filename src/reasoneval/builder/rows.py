"""JSON-lines rows of a build step: reading, writing, hashing, and the id of a row."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.jsonl import iter_jsonl, located

Row = dict[str, Any]
ID_FIELDS = ("id", "index", "idx")


class BuildError(ValueError):
    """A build step cannot go on: bad input, bad parameters, a model run that failed."""


def _error(path: Path, line: int | None, msg: str) -> Exception:
    return BuildError(located(path, line, msg))


def read_rows(path: str | Path) -> list[Row]:
    return [rec for _, rec in iter_jsonl(path, _error)]


def write_rows(path: str | Path, rows: Iterable[Row]) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return p


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def rows_sha256(rows: Iterable[Row]) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update((json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    return h.hexdigest()


def row_id(row: Row, field: str | None = None) -> str:
    """A row's id: ``field`` when given, else the first of id / index / idx."""
    for k in (field,) if field else ID_FIELDS:
        v = row.get(k)
        if v is not None and not isinstance(v, bool) and str(v).strip():
            return str(v).strip()
    raise BuildError(f"row without an id ({field or ' / '.join(ID_FIELDS)}): {json.dumps(row)[:120]}")


def check_unique(rows: list[Row], field: str | None = None) -> None:
    seen: set[str] = set()
    for r in rows:
        i = row_id(r, field)
        if i in seen:
            raise BuildError(f"duplicate row id {i!r}")
        seen.add(i)


def question_text(row: Row, field: str = "question") -> str:
    v = row.get(field)
    if not isinstance(v, str) or not v.strip():
        raise BuildError(f"row {row_id(row)}: field {field!r} must be a non-empty string")
    return v
