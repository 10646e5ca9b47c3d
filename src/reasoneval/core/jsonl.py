"""JSON-lines reading with errors that name the file and line (one reader for every benchmark)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

MakeError = Callable[[Path, "int | None", str], Exception]


def located(path: Path, line: int | None, msg: str) -> str:
    return f"{path}:{line}: {msg}" if line is not None else f"{path}: {msg}"


def iter_jsonl(path: str | Path, make_error: MakeError) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; ``make_error(path, line, message)`` on bad input."""
    p = Path(path)
    try:
        fh = p.open(encoding="utf-8")
    except OSError as e:
        raise make_error(p, None, f"cannot open: {e.strerror}") from e
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise make_error(p, lineno, f"invalid JSON ({e.msg} at column {e.colno})") from e
            if not isinstance(rec, dict):
                raise make_error(p, lineno, f"expected a JSON object, got {type(rec).__name__}")
            yield lineno, rec
