"""Bad `run` inputs are one line naming what is wrong: sampling values that are not JSON numbers, a binary,
empty or endless `--data` file; the readers name the file and stop at a line without end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cliutil import one_line_error as _one_line_error

from reasoneval.core import jsonl
from reasoneval.core.errors import DataError
from reasoneval.core.records import read_records


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


@pytest.mark.parametrize("flags,needle", [
    (["--temperature", "nan"], "--temperature nan: must be a number from 0 up"),
    (["--temperature", "inf"], "--temperature inf"),
    (["--temperature", "-0.5"], "--temperature -0.5"),
    (["--top-p", "nan"], "--top-p nan: must be a number from 0 to 1"),
    (["--top-p", "1.5"], "--top-p 1.5"),
    (["--extra-body", '{"top_k": NaN}'], "--extra-body: NaN is not valid JSON"),
    (["--extra-body", '{"x": -Infinity}'], "-Infinity is not valid JSON"),
])
def test_sampling_values_that_are_not_json_numbers_are_refused(tmp_path: Path, fake_server, flags: list[str],
                                                               needle: str) -> None:
    """Before: `--temperature nan` was sent as the bare token NaN, which no JSON parser accepts."""
    p = _cli("run", "toy:a", "--model", f"openai-compat/m@{fake_server.url}", "--store", "s.db", "--no-progress",
             *flags, cwd=tmp_path)
    _one_line_error(p, needle)
    assert fake_server.stats().get("requests", 0) == 0 and not (tmp_path / "s.db").exists()


def test_finite_sampling_values_are_sent(tmp_path: Path, fake_server) -> None:
    p = _cli("run", "toy:a", "--model", f"openai-compat/m@{fake_server.url}", "--store", "s.db", "--no-progress",
             "--temperature", "0.7", "--top-p", "1", "--extra-body", '{"top_k": 20}', "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout)["runs"][0]["run"]["spec"]["params"]["temperature"] == 0.7


@pytest.fixture
def bad_files(tmp_path: Path) -> Path:
    (tmp_path / "bin.json").write_bytes(b"BINARY\x00\x01\xab\xcd" + os.urandom(500))
    (tmp_path / "bin.jsonl").write_bytes(b"BINARY\x00\x01\xab\xcd" + os.urandom(500))
    (tmp_path / "empty.jsonl").write_bytes(b"")
    return tmp_path


@pytest.mark.parametrize("bench", ["korbench", "rbench"])
@pytest.mark.parametrize("name,needles", [
    ("bin.json", ["bin.json", "not UTF-8", "byte 9"]),
    ("bin.jsonl", ["bin.jsonl", "UTF-8", "byte 9"]),
    ("empty.jsonl", ["--data empty.jsonl: empty file (0 bytes)"]),  # before: "no items in mode ..."
    ("/dev/zero", ["--data /dev/zero: not a regular file or folder"]),  # before: korbench read without end
])
def test_bad_data_files_are_named(bad_files: Path, bench: str, name: str, needles: list[str]) -> None:
    if name.startswith("/dev/") and not os.path.exists(name):
        pytest.skip(f"no {name}")
    p = _cli("run", bench, "--data", name, "--model", "openai-compat/m@http://127.0.0.1:9/v1", "--store", "s.db",
             "--no-progress", cwd=bad_files)
    _one_line_error(p, *needles)


def test_an_empty_file_in_a_data_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_bytes(b"")
    with pytest.raises(DataError, match=r"rows.jsonl: empty file \(0 bytes\), no rows"):
        read_records(tmp_path / "rows.jsonl")
    (tmp_path / "rows.json").write_bytes(b'[{"q": "\xff"}]')
    with pytest.raises(DataError, match=r"rows.json: not valid JSON \(not UTF-8 text: invalid start byte at byte 9"):
        read_records(tmp_path / "rows.json")


def test_a_line_over_the_limit_is_named_and_skipped(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 1000)
    f = tmp_path / "x.jsonl"
    f.write_bytes(b'{"a": 1}\n' + b'{"b": "' + b"x" * 990 + b'"}\n' + b"0" * 5000 + b"\n" + b'{"c": 3}\n')
    got = list(jsonl.iter_jsonl_tolerant(f, DataError))
    assert got[:2] == [(1, {"a": 1}), (2, {"b": "x" * 990})]  # a line of exactly the limit is read
    assert len(got) == 4 and got[2][0] == 3 and isinstance(got[2][1], DataError)
    assert "x.jsonl:3: line of 5,001 bytes, longer than" in str(got[2][1])
    assert got[3] == (4, {"c": 3})  # the lines after it are read (before: reading stopped, the rest was lost)
    with pytest.raises(DataError, match="x.jsonl:3: line of 5,001 bytes"):  # the strict reader stops there
        list(jsonl.iter_jsonl(f, DataError))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_as_json_lines_is_one_error_not_endless() -> None:
    with pytest.raises(DataError, match="/dev/zero:1: line longer than 64 MiB"):
        list(jsonl.iter_jsonl("/dev/zero", DataError))
