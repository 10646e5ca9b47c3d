"""Official KOR-Bench raw-output files: ``<model>_<category>_<mode>.jsonl``, one JSON record per line.

Main runs have ``category`` in the five categories and ``mode`` ``zero-shot`` / ``three-shot`` /
``self-correction`` / ``trick`` / ...; the cipher sub-step run is ``<model>_cipher_subquestions.jsonl``; mixed runs
are ``<model>_<Multi-Q|Multi-R|Multi-RQ|Multi-RQ_Hard>_mixed.jsonl`` (``<model>_mixed_<set>.jsonl`` is accepted
too). Names are parsed from the right, so model names may contain underscores.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasoneval.core.errors import DataError
from reasoneval.core.jsonl import iter_jsonl_tolerant, located

from .data import CATEGORIES, MIXED_SETS

MAIN_MODES: tuple[str, ...] = (
    "zero-shot", "three-shot", "self-correction", "self-correction-with-needle", "trick",
    "only-questions-zero-shot", "only-questions-three-shot",
)  # fmt: skip
MODES: tuple[str, ...] = (*MAIN_MODES, "subquestions", "mixed", *MIXED_SETS)


class RawFileError(DataError):
    """A raw-output file or row that cannot be used; the message starts with ``path[:line]:``."""


@dataclass(frozen=True)
class RawFile:
    path: Path
    model: str
    category: str  # one of CATEGORIES or MIXED_SETS
    mode: str  # one of MAIN_MODES, "subquestions" or "mixed"

    @property
    def kind(self) -> str:
        if self.mode == "mixed":
            return "mixed"
        if self.mode == "subquestions":
            return "subquestions"
        if self.mode.startswith("self-correction"):
            return "self-correction"
        return "main"


def _strip_suffix(stem: str, options: Iterable[str]) -> tuple[str, str] | None:
    for opt in sorted(options, key=len, reverse=True):
        if stem.endswith("_" + opt) and len(stem) > len(opt) + 1:
            return stem[: -len(opt) - 1], opt
    return None


def parse_name(path: Path | str) -> RawFile:
    p = Path(path)
    name = p.name
    if not name.endswith(".jsonl"):
        raise RawFileError(f"{p}: not a .jsonl file")
    stem = name[: -len(".jsonl")]
    got = _strip_suffix(stem, MODES)
    if got is None:
        raise RawFileError(f"{p}: name is not <model>_<category>_<mode>.jsonl (unknown mode; known: {', '.join(MODES)})")
    rest, mode = got
    got = _strip_suffix(rest, (*CATEGORIES, *MIXED_SETS, "mixed"))
    if got is None:
        raise RawFileError(f"{p}: unknown category in {stem!r}")
    model, category = got
    if mode in MIXED_SETS and category == "mixed":
        category, mode = mode, "mixed"
    if (mode == "mixed") != (category in MIXED_SETS):
        raise RawFileError(f"{p}: mode {mode!r} does not go with category {category!r}")
    if mode == "subquestions" and category != "cipher":
        raise RawFileError(f"{p}: subquestions exist for cipher only")
    if mode == "trick" and category != "puzzle":
        raise RawFileError(f"{p}: the trick experiment is puzzle-only")
    return RawFile(p, model, category, mode)


def discover(paths: Iterable[str | Path]) -> tuple[list[RawFile], list[str]]:
    """Files to score (folders expanded to their ``*.jsonl``, sorted), plus errors for unusable paths."""
    files: list[RawFile] = []
    errors: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            candidates = sorted(x for x in p.rglob("*.jsonl") if x.is_file())
            if not candidates:
                errors.append(f"{p}: no .jsonl files")
        elif p.is_file():
            candidates = [p]
        else:
            errors.append(f"{p}: no such file or directory")
            continue
        for c in candidates:
            try:
                files.append(parse_name(c))
            except RawFileError as e:
                errors.append(str(e))
    return files, errors


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | RawFileError]]:
    """``(line, record)`` for each non-blank line; a bad line yields a :class:`RawFileError` instead."""
    return iter_jsonl_tolerant(path, lambda p, n, m: RawFileError(located(p, n, m)))


def require(rec: dict[str, Any], path: Path, line: int, *keys: str) -> None:
    for k in keys:
        if k not in rec:
            raise RawFileError(f"{path}:{line}: missing field {k!r}")
        if k != "response" and not isinstance(rec[k], str | int):
            raise RawFileError(f"{path}:{line}: field {k!r} has type {type(rec[k]).__name__}")
