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


@pytest.mark.parametrize("line", [
    b'{"a": "x\\u00e9\\ud83d\\ude00", "b": [1, 2.5, null]}',  # escapes, non-ASCII through escapes
    '{"a": "é 漢字 😀"}'.encode(),  # raw UTF-8
    b'\xef\xbb\xbf{"a": 1}',  # a BOM: json.loads' own utf-8-sig path
    '{"a": 1}'.encode("utf-16"), '{"a": 1}'.encode("utf-16-le"), '{"a": 1}'.encode("utf-32-be"),
    b'{"a": "\xed\xa0\x80"}',  # an encoded lone surrogate: json.loads' 'surrogatepass' decodes it
    b'{"a": "\xff"}', b'{"a": \xc3}', b'{"a": }', b'{"a": "\xc3\xa9"',  # invalid UTF-8 / JSON
])
def test_lines_decode_as_json_loads_decodes_them(tmp_path: Path, line: bytes) -> None:
    """Lines are decoded before ``json.loads`` where that is the same text it would make of the bytes: every
    object and every error message is the one ``json.loads`` on the bytes gives."""
    import json

    try:
        want: object = json.loads(line + b"\n")  # the bytes the reader had json.loads decode before
    except ValueError as e:
        want = f"{type(e).__name__}: {e}"
    got = list(iter_jsonl_tolerant(_write(tmp_path / "r.jsonl", line + b"\n"), DataError))
    assert len(got) == 1
    if isinstance(want, str):
        assert isinstance(got[0][1], DataError)
        cause = got[0][1].__cause__
        assert f"{type(cause).__name__}: {cause}" == want
    else:
        assert got[0][1] == want
