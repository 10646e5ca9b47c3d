"""The one JSON-lines reader: strict and tolerant modes, errors naming file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoneval.core.errors import DataError
from reasoneval.core.jsonl import iter_jsonl, iter_jsonl_tolerant


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_tolerant_reads_on_after_bad_lines(tmp_path: Path) -> None:
    p = _write(tmp_path / "r.jsonl", b'{"a": 1}\n\n{broken\n[1, 2]\n{"b": "\xff"}\r\n  \n{"c": 3}\r\n{"d": 4}')
    got = list(iter_jsonl_tolerant(p, DataError))
    assert [n for n, _ in got] == [1, 3, 4, 5, 7, 8]
    assert got[0][1] == {"a": 1} and got[4][1] == {"c": 3} and got[5][1] == {"d": 4}
    errs = [str(r) for _, r in got if isinstance(r, DataError)]
    assert errs[0].startswith(f"{p}:3: invalid JSON")
    assert errs[1] == f"{p}:4: expected a JSON object, got list"
    assert errs[2].startswith(f"{p}:5: invalid JSON (not UTF-8")


def test_strict_stops_at_the_first_bad_line(tmp_path: Path) -> None:
    p = _write(tmp_path / "r.jsonl", b'\xef\xbb\xbf{"a": 1}\n{"b": 2}\n{"c": \n{"d": 4}\n')
    seen = []
    with pytest.raises(DataError, match=r"r\.jsonl:3: invalid JSON \(Expecting value"):
        for n, rec in iter_jsonl(p, DataError):
            seen.append((n, rec))
    assert seen == [(1, {"a": 1}), (2, {"b": 2})]  # a UTF-8 BOM is allowed


def test_unreadable_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.jsonl"
    ((n, err),) = list(iter_jsonl_tolerant(missing, DataError))
    assert n == 0 and isinstance(err, DataError) and str(err).startswith(f"{missing}: cannot open")
    with pytest.raises(DataError, match="cannot open"):
        list(iter_jsonl(missing, DataError))
