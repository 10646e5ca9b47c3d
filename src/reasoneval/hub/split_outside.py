"""``rescore`` for single-split releases: rows in the release's own format plus a ``response`` field.

Each row of a JSON-lines, JSON or Parquet file (or of every such file in a folder, sorted) is one item, read as
the benchmark reads its release (``SplitBenchmark.record_item``), with the model's text in ``response`` and,
optionally, ``finish_reason`` (``"length"``: cut off at the token limit). A row that cannot be used is one error
naming the file and line; the rows after it are read on. Rows keep their input order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core.benchmark import OutsideRow
from ..core.errors import DataError
from ..core.jsonl import iter_jsonl_tolerant, located
from ..core.records import DATA_SUFFIXES, Record, read_records
from ..core.values import Completion, Item


def _files(paths: list[str]) -> Iterator[Path | DataError]:
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() in DATA_SUFFIXES)
            if not found:
                yield DataError(f"{p}: no .jsonl, .json or .parquet files")
            yield from found
        elif p.exists():
            yield p
        else:
            yield DataError(f"{p}: no such file or folder")


def _records(path: Path) -> Iterator[Record | DataError]:
    if path.suffix.lower() == ".jsonl":
        for line, rec in iter_jsonl_tolerant(path, lambda p, n, m: DataError(located(p, n, m))):
            yield rec if isinstance(rec, DataError) else Record(path, line, rec)
        return
    try:
        yield from read_records(path)
    except DataError as e:
        yield e


def outside_rows(paths: list[str], mode: str, to_item: Callable[[Record, int], Item]
                 ) -> Iterator[OutsideRow | DataError]:
    """One :class:`OutsideRow` per usable row (``to_item(record, index)`` makes its item; ``index`` counts the
    rows of the file from 0), a ``DataError`` per unusable one."""
    for f in _files(paths):
        if isinstance(f, DataError):
            yield f
            continue
        index = 0
        for rec in _records(f):
            if isinstance(rec, DataError):
                yield rec
                continue
            i, index = index, index + 1
            try:
                yield _row(rec, i, mode, to_item)
            except DataError as e:
                yield DataError(f"{rec.source}:{rec.row}: {e}" if str(rec.source) not in str(e) else str(e))


def _row(rec: Record, index: int, mode: str, to_item: Callable[[Record, int], Item]) -> OutsideRow:
    response: Any = rec.data.get("response")
    if not isinstance(response, str):
        got = "missing" if response is None else f"a {type(response).__name__}"
        raise DataError(f"{rec.where('response')}: the model's text (a string) is required, {got}")
    finish = rec.data.get("finish_reason")
    item = to_item(rec, index)
    return OutsideRow(item, mode, Completion(response, finish if isinstance(finish, str) else None),
                      f"{rec.source}:{rec.row}", source=rec.source.name)
