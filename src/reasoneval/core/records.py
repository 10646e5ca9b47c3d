"""Reading dataset rows from the formats Hugging Face stores them in: Parquet, JSON Lines and JSON.

Every error names the file, the row and the field, so a user with a malformed export can fix it. One reader
for every benchmark (datasets given with ``--data``, and outside completions given to ``rescore``).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import DataError
from .jsonl import TooDeep, iter_jsonl, json_value, located

DATA_SUFFIXES = (".parquet", ".jsonl", ".json")
_SKIP_NAMES = {"dataset_info.json", "dataset_infos.json", "state.json", "dataset_dict.json"}


@dataclass(frozen=True)
class Record:
    source: Path
    row: int  # 1-based: JSONL line number, Parquet/JSON row index + 1
    data: dict[str, Any]

    def where(self, field: str | None = None) -> str:
        loc = f"{self.source}: row {self.row}"
        return f"{loc}: field {field!r}" if field else loc


def data_files(root: Path) -> list[Path]:
    """Data files under ``root`` (or ``root`` itself), sorted; hidden folders and HF metadata skipped."""
    if root.is_file():
        return [root]
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).parts
        if any(part.startswith(".") for part in rel) or p.name in _SKIP_NAMES:
            continue
        if p.is_file() and p.name.lower().endswith(DATA_SUFFIXES):
            out.append(p)
    return out


@functools.lru_cache(maxsize=8)
def folder_version(root: str) -> str:
    """The data version of a local ``--data`` folder or file: a hash of its data files' contents (cached per
    path for the process; "empty" when it holds none)."""
    from .hashing import hash_files

    files = data_files(Path(root))
    return hash_files(files) if files else "empty"


def _read_parquet(path: Path) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise DataError(f"{path}: reading Parquet needs pyarrow (pip install 'reasoneval[parquet]')") from e
    try:
        table = pq.read_table(path)
    except Exception as e:
        raise DataError(f"{path}: not a readable Parquet file ({e})") from e
    yield from table.to_pylist()


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    return iter_jsonl(path, lambda p, n, m: DataError(located(p, n, m)))


def _read_json(path: Path) -> list[Any]:
    try:
        obj = json_value(path.read_text(encoding="utf-8"))
    except TooDeep as e:  # a RecursionError of the parser, named
        raise DataError(f"{path}: not valid JSON ({e})") from None
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from e
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not valid JSON (not UTF-8 text: {e.reason} at byte {e.start + 1})") from e
    if isinstance(obj, dict):
        for key in ("data", "rows", "test", "items"):
            if isinstance(obj.get(key), list):
                return list(obj[key])
        raise DataError(f"{path}: expected a list of rows (or an object with a 'data' list)")
    if not isinstance(obj, list):
        raise DataError(f"{path}: expected a list of rows, got {type(obj).__name__}")
    return obj


def read_records(path: Path) -> list[Record]:
    name = path.name.lower()
    if path.is_file() and path.stat().st_size == 0:
        raise DataError(f"{path}: empty file (0 bytes), no rows")
    if name.endswith(".parquet"):
        return [Record(path, i, r) for i, r in enumerate(_read_parquet(path), 1)]
    if name.endswith(".jsonl"):
        return [Record(path, n, r) for n, r in _read_jsonl(path)]
    if name.endswith(".json"):
        out = []
        for i, r in enumerate(_read_json(path), 1):
            if not isinstance(r, dict):
                raise DataError(f"{path}: row {i}: expected a JSON object, got {type(r).__name__}")
            out.append(Record(path, i, r))
        return out
    raise DataError(f"{path}: unsupported file type (use .parquet, .jsonl or .json)")


def read_all(paths: Iterable[Path]) -> list[Record]:
    out: list[Record] = []
    for p in paths:
        out.extend(read_records(p))
    return out


def first_key(rec: Record, names: tuple[str, ...]) -> str | None:
    for n in names:
        if n in rec.data and rec.data[n] is not None:
            return n
    return None


def req_str(rec: Record, names: tuple[str, ...], *, allow_number: bool = False) -> str:
    """The first present field of ``names`` as a non-empty string, else a DataError naming ``names[0]``."""
    key = first_key(rec, names)
    if key is None:
        alts = f" (or {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""
        raise DataError(f"{rec.where(names[0])}{alts} is missing")
    v = rec.data[key]
    if allow_number and isinstance(v, int | float) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise DataError(f"{rec.where(key)} must be a string, got {type(v).__name__}")
    if not v.strip():
        raise DataError(f"{rec.where(key)} is empty")
    return v


def opt_str(rec: Record, names: tuple[str, ...]) -> str | None:
    key = first_key(rec, names)
    if key is None:
        return None
    v = rec.data[key]
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    if not isinstance(v, str):
        raise DataError(f"{rec.where(key)} must be a string, got {type(v).__name__}")
    return v.strip() or None


def configured(option: str | os.PathLike[str] | None) -> bool:
    """Whether a local dataset path is given (``--data`` / ``-O data=``); else the Hub release is used."""
    return bool(option)


def data_path(option: str | os.PathLike[str] | None, what: str, layout_help: str, benchmark: str = "") -> Path:
    """The dataset root from the ``data`` option; a clear error when it is missing or does not exist."""
    raw = str(option) if option else ""
    flag = f"`reasoneval run {benchmark} --data PATH`" if benchmark else "--data PATH"
    if not raw:
        raise DataError(
            f"no {what} data configured. It cannot be downloaded by reasoneval: fetch the public release "
            f"yourself and point {flag} (or -O data=PATH) at it.\n{layout_help}")
    p = Path(raw).expanduser()
    if not p.exists():
        raise DataError(f"--data {raw}: no such file or folder.\n{layout_help}")
    return p
