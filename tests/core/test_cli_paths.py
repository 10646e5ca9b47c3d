"""Output paths of `export` and `report --md/--csv/--html`: one-line errors, never a half-written file; real CSV."""

from __future__ import annotations

import csv
import json
import os
import resource
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cliutil import one_line_error as _one_line_error

from reasoneval.core.outfile import OutputError, output_path, write_text
from reasoneval.testing.procs import FakeServerProc

ODD = 'He said "no", then, after a pause:\nfine; [[river]]'  # quotes, commas and a newline in one answer


def _cli(*args: str, cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A store holding one toy run (30 items; item a1's answer has quotes, commas and a newline)."""
    d = tmp_path_factory.mktemp("paths")
    (d / "answers.jsonl").write_text(json.dumps({"contains": "Item a1:", "response": ODD}) + "\n")
    srv = FakeServerProc("--answers", str(d / "answers.jsonl"))
    try:
        p = _cli("run", "toy:a", "--model", f"openai-compat/m@{srv.url}", "--store", "s.db", "--no-progress",
                 "--json", cwd=d)
        assert p.returncode == 0, p.stderr
    finally:
        srv.stop()
    yield d, json.loads(p.stdout)["runs"][0]["run"]["run_id"]


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".part"))


def test_export_into_a_missing_folder_is_one_line(stored: tuple[Path, str]) -> None:
    d, rid = stored
    _one_line_error(_cli("export", rid, "nodir/out.jsonl", "--store", "s.db", cwd=d), "nodir/out.jsonl",
                    "no folder nodir")
    assert not (d / "nodir").exists()


def test_export_to_a_folder_is_one_line(stored: tuple[Path, str]) -> None:
    d, rid = stored
    (d / "adir.jsonl").mkdir(exist_ok=True)
    for target in ("adir.jsonl", str(d)):
        _one_line_error(_cli("export", rid, target, "--store", "s.db", cwd=d), "it is a folder")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [["export", "RID", "/dev/full"], ["report", "RID", "--md", "/dev/full"],
                                  ["report", "RID", "--html", "/dev/full"], ["report", "RID", "--csv", "/dev/full"]])
def test_a_full_device_is_one_line(stored: tuple[Path, str], args: list[str]) -> None:
    d, rid = stored
    p = _cli(*[rid if a == "RID" else a for a in args], "--store", "s.db", cwd=d)
    _one_line_error(p, "cannot write /dev/full", "No space left on device")


@pytest.mark.parametrize("flag,name", [("--md", "t.md"), ("--csv", "t.csv"), ("--html", "t.html")])
def test_report_files_into_a_missing_folder_are_one_line(stored: tuple[Path, str], flag: str, name: str) -> None:
    d, rid = stored
    _one_line_error(_cli("report", rid, "--store", "s.db", flag, f"nodir/{name}", cwd=d), "no folder nodir")
    assert not (d / "nodir").exists()


@pytest.mark.parametrize("args,name", [(["export", "RID", "old.jsonl"], "old.jsonl"),
                                       (["report", "RID", "--html", "old.html"], "old.html")])
def test_a_write_that_fails_halfway_leaves_the_old_file(stored: tuple[Path, str], args: list[str],
                                                        name: str) -> None:
    """A file-size limit makes the write fail after 2,000 bytes (EFBIG): the previous file stays as it was,
    with its permissions, and no partial file is left."""
    d, rid = stored
    (d / name).write_text("previous content\n")
    os.chmod(d / name, 0o600)

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    p = _cli(*[rid if a == "RID" else a for a in args], "--store", "s.db", cwd=d, preexec_fn=small_files)
    _one_line_error(p, f"cannot write {name}", "File too large")
    assert (d / name).read_text() == "previous content\n"
    assert stat.S_IMODE((d / name).stat().st_mode) == 0o600
    assert _leftovers(d) == []
    ok = _cli(*[rid if a == "RID" else a for a in args], "--store", "s.db", cwd=d)  # without the limit
    assert ok.returncode == 0, ok.stderr
    assert (d / name).stat().st_size > 2000 and stat.S_IMODE((d / name).stat().st_mode) == 0o600


def test_export_csv_is_real_csv_one_row_per_completion(stored: tuple[Path, str]) -> None:
    d, rid = stored
    assert _cli("export", rid, "rows.csv", "--store", "s.db", cwd=d).returncode == 0
    assert _cli("export", rid, "rows.jsonl", "--store", "s.db", cwd=d).returncode == 0
    with (d / "rows.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    lines = [json.loads(x) for x in (d / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == len(lines) == 30
    for c, j in zip(rows, lines, strict=True):
        assert (c["item"], c["response"], c["outcome"], c["extracted"], c["method"]) == (
            j["item"], j["response"], j["verdict"]["outcome"], j["verdict"]["extracted"] or "", j["verdict"]["method"])
        assert json.loads(c["prompt"]) == j["prompt"] and c["gold"] == j["gold"]
        assert int(c["completion_tokens"]) == j["completion_tokens"]
    odd = next(c for c in rows if c["item"] == "a/1")
    assert odd["response"] == ODD and odd["outcome"] == "correct"


def test_export_json_is_one_array_of_the_json_lines_rows(stored: tuple[Path, str]) -> None:
    d, rid = stored
    assert _cli("export", rid, "rows.json", "--store", "s.db", cwd=d).returncode == 0
    assert _cli("export", rid, "rows.jsonl", "--store", "s.db", cwd=d).returncode == 0
    assert json.loads((d / "rows.json").read_text()) == [
        json.loads(x) for x in (d / "rows.jsonl").read_text().splitlines()]


def test_export_refuses_an_unknown_suffix(stored: tuple[Path, str]) -> None:
    d, rid = stored
    _one_line_error(_cli("export", rid, "rows.txt", "--store", "s.db", cwd=d), "unknown format '.txt'",
                    ".jsonl, .json, .csv or .parquet")
    assert not (d / "rows.txt").exists()


def test_export_through_a_symlink_replaces_the_file_and_keeps_the_link(stored: tuple[Path, str]) -> None:
    d, rid = stored
    (d / "target.jsonl").write_text("old\n")
    link = d / "link.jsonl"
    if not link.is_symlink():
        link.symlink_to("target.jsonl")
    assert _cli("export", rid, "link.jsonl", "--store", "s.db", cwd=d).returncode == 0
    assert link.is_symlink() and len((d / "target.jsonl").read_text().splitlines()) == 30


def test_export_to_a_pipe_writes_json_lines(stored: tuple[Path, str]) -> None:
    d, rid = stored
    p = _cli("export", rid, "/dev/stdout", "--store", "s.db", cwd=d)
    assert p.returncode == 0, p.stderr
    assert len([json.loads(x) for x in p.stdout.splitlines()]) == 30


def test_output_path_is_all_or_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o.txt"
    write_text(out, "one")
    with pytest.raises(KeyboardInterrupt), output_path(out) as tmp:
        tmp.write_text("half")
        raise KeyboardInterrupt
    with pytest.raises(OutputError, match="cannot write .*o.txt: Input/output error"), output_path(out) as tmp:
        tmp.write_text("half")
        raise OSError(5, "Input/output error")
    assert out.read_text() == "one" and sorted(p.name for p in tmp_path.iterdir()) == ["o.txt"]
    write_text(out, "two \ud800")  # a lone surrogate from a model: its escape, not a crash
    assert out.read_text() == "two \\ud800"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_report_to_a_full_standard_output_is_one_line(stored: tuple[Path, str], extra: list[str]) -> None:
    d, rid = stored
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "reasoneval.cli", "report", rid, "--store", "s.db", *extra],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, cwd=d)
    assert p.returncode == 2 and p.stderr.strip() == ("error: cannot write to standard output: "
                                                      "No space left on device"), p.stderr[-2000:]


def test_report_into_a_closed_pipe_is_quiet(stored: tuple[Path, str]) -> None:
    d, rid = stored
    r, w = os.pipe()
    os.close(r)  # the reader is gone before anything is written
    try:
        p = subprocess.run([sys.executable, "-m", "reasoneval.cli", "report", rid, "--store", "s.db", "--json"],
                           stdout=w, stderr=subprocess.PIPE, text=True, timeout=120, cwd=d)
    finally:
        os.close(w)
    assert p.returncode == 0 and p.stderr == "", p.stderr[-2000:]
