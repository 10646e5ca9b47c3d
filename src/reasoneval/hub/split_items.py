"""Items of a single-split Hub release (the transfer benchmarks: GSM8K, MATH, MMLU): the test files of a local
``--data`` copy or of the pinned release, read into items whose keys must be unique."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.errors import DataError
from ..core.records import Record, configured, data_files, data_path, read_records
from ..core.types import Item


def split_files(option: str | None, name: str, config: str, revision: str | None, label: str,
                layout_help: str) -> list[Path]:
    """A local copy's ``test*`` files (all its files when it has none, or when it is a single file), else the
    pinned release's files."""
    if configured(option):
        root = data_path(str(option), label, layout_help, name)
        files = data_files(root)
        tests = [p for p in files if p.name.lower().startswith("test")]
        files = tests if root.is_dir() and tests else files
    else:
        from .fetch import resolve_release

        files = list(resolve_release(name, config, revision=revision).paths)
    if not files:
        raise DataError(f"{option}: no data files.\n{layout_help}")
    return files


def unique_items(files: list[Path], to_item: Callable[[Record], Item], id_field: str) -> list[Item]:
    """Every record of ``files`` as an item, in file order; a repeated item key names both records."""
    items: list[Item] = []
    seen: dict[str, Record] = {}
    for f in files:
        for rec in read_records(f):
            it = to_item(rec)
            if it.key in seen:
                raise DataError(f"{rec.where(id_field)}: duplicate id {it.key!r} (first at {seen[it.key].where()})")
            seen[it.key] = rec
            items.append(it)
    return items
