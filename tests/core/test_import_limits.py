"""Imports with limits: a zip or Zstandard bomb in an inspect-ai log, JSON nested 100,000 levels deep, a line over
the line limit and a non-text ``response`` are each one error naming the file and line (or member), and the
rest of the input is still imported."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core import jsonl
from reasoneval.runner import harness_logs as H

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "harness_logs"
runner = CliRunner()
DEEP = "[" * 100_000 + "]" * 100_000


def _import(*args: str) -> tuple[int, list[dict], list[str]]:
    r = runner.invoke(app, ["import", "korbench", *args, "--json"])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    errors = [x for x in r.stderr.splitlines() if x.startswith("error: ")]
    out = r.stdout[r.stdout.index("["):] if "[" in r.stdout else "[]"
    return r.exit_code, json.loads(out), errors


def _eval_with(tmp: Path, name: str, data: bytes, method: int) -> Path:
    """The fixture's inspect-ai log with one more member ``name`` holding ``data``."""
    out = tmp / "logs" / "korbench_operation.eval"
    out.parent.mkdir(parents=True)
    shutil.copy(FIX / "inspect" / "korbench_operation.eval", out)
    if method == H.ZSTD:
        import zstandard

        comp = zstandard.ZstdCompressor(level=19).compress(data)
        info = zipfile.ZipInfo(name)
        with zipfile.ZipFile(out, "a") as z:  # written stored, then marked Zstandard as inspect-ai writes it
            z.writestr(info, comp)
        raw = bytearray(out.read_bytes())
        with zipfile.ZipFile(out) as z:
            zi = z.getinfo(name)
        cd = _central(raw, name)
        for off in (zi.header_offset + 8, cd + 10):  # the method field of the local and central headers
            raw[off:off + 2] = H.ZSTD.to_bytes(2, "little")
        raw[cd + 24:cd + 28] = len(data).to_bytes(4, "little")  # uncompressed size
        out.write_bytes(bytes(raw))
    else:
        with zipfile.ZipFile(out, "a", compression=method) as z:
            z.writestr(name, data)
    return out


def _central(raw: bytearray, name: str) -> int:
    """Offset of ``name``'s central directory record."""
    i = 0
    while True:
        i = raw.index(b"PK\x01\x02", i)
        n = int.from_bytes(raw[i + 28:i + 30], "little")
        if raw[i + 46:i + 46 + n] == name.encode():
            return i
        i += 4


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, H.ZSTD])
def test_a_decompression_bomb_member_is_one_error_and_the_other_samples_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: int) -> None:
    monkeypatch.setattr(H, "MAX_MEMBER", 1 << 20)  # 1 MiB: the bomb expands to 64 MiB
    log = _eval_with(tmp_path, "samples/99_epoch_1.json", b" " * (64 << 20), method)
    assert log.stat().st_size < 1 << 20
    code, runs, errors = _import(str(log), "--store", str(tmp_path / "s.db"))
    assert code == 1 and len(errors) == 1, errors
    assert f"{log}!samples/99_epoch_1.json: more than 1 MiB once decompressed" in errors[0]
    assert runs[0]["items"] == 10


def test_the_members_of_a_log_are_bounded_in_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "MAX_TOTAL", 40_000)  # the header and a few samples fit, not all of them
    log = FIX / "inspect" / "korbench_operation.eval"
    code, runs, errors = _import(str(log), "--store", str(tmp_path / "s.db"))
    assert code == 1 and len(errors) == 1 and "exceed 0 MiB in all once decompressed" in errors[0], errors
    assert 0 < runs[0]["items"] < 10


def test_json_nested_100k_levels_is_an_error_naming_where(tmp_path: Path) -> None:
    src = tmp_path / "logs" / "m"
    src.mkdir(parents=True)
    for f in (FIX / "lm-eval" / "fake-chat").iterdir():
        shutil.copy(f, src / f.name)
    (samples,) = src.glob("samples_*.jsonl")
    lines = samples.read_text().split("\n")
    lines[3] = '{"doc": ' + DEEP + "}"
    samples.write_text("\n".join(lines))
    (results,) = src.glob("results_*.json")
    results.write_text(DEEP)
    code, runs, errors = _import(str(src), "--store", str(tmp_path / "s.db"))
    assert code == 1 and len(errors) == 2, errors
    assert any(f"{results}: JSON nested too deeply" in e for e in errors)
    assert any(f"{samples}:4: JSON nested too deeply" in e for e in errors)
    assert runs[0]["items"] == 9 and runs[0]["model"] == "m"  # named after the folder, its results unreadable
    log = _eval_with(tmp_path / "e", "samples/99_epoch_1.json", DEEP.encode(), zipfile.ZIP_DEFLATED)
    code, runs, errors = _import(str(log), "--store", str(tmp_path / "s.db"))
    assert len(errors) == 1 and f"{log}!samples/99_epoch_1.json: not JSON (JSON nested too deeply" in errors[0]
    assert runs[0]["items"] == 10


def test_a_line_over_the_limit_is_named_and_the_lines_after_it_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 4096)
    src = tmp_path / "logs" / "m"
    src.mkdir(parents=True)
    for f in (FIX / "lm-eval" / "fake-chat").iterdir():
        shutil.copy(f, src / f.name)
    (samples,) = src.glob("samples_*.jsonl")
    lines = samples.read_text().split("\n")
    lines[2] = json.dumps({**json.loads(lines[2]), "pad": "x" * 100_000})
    samples.write_text("\n".join(lines))
    code, runs, errors = _import(str(src), "--store", str(tmp_path / "s.db"))
    assert code == 1 and len(errors) == 1 and f"{samples}:3: line of 100," in errors[0], errors
    assert "skipped" in errors[0]
    assert runs[0]["items"] == 9  # the 7 lines after it are imported (before: reading stopped at line 3)


def test_a_response_that_is_not_text_is_an_error_naming_the_record(korbench_outputs: Path, tmp_path: Path) -> None:
    src = tmp_path / "out"
    src.mkdir()
    f = src / "gpt-4o_logic_zero-shot.jsonl"
    recs = [json.loads(x) for x in (korbench_outputs / "main" / f.name).read_text().split("\n") if x][:5]
    recs[1]["response"] = 42
    recs[2]["response"] = ["[[A]]"]
    recs[3]["response"] = None  # the release's record of a failed call: scored wrong, as the reference does
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code, runs, errors = _import(str(src), "--store", str(tmp_path / "s.db"))
    assert code == 1 and len(errors) == 2, errors
    assert f"{f}:2: 'response' must be text (the model's answer), got int" in errors[0]
    assert f"{f}:3: 'response' must be text (the model's answer), got list" in errors[1]
    assert runs[0]["items"] == 3


def test_a_results_file_nested_100k_levels_is_one_line_naming_it(tmp_path: Path) -> None:
    deep = tmp_path / "results.json"
    deep.write_text(DEEP)
    r = runner.invoke(app, ["import", "general365", str(deep), "--store", str(tmp_path / "s.db")])
    assert r.exit_code == 2 and r.stderr.strip() == f"error: {deep}: not valid JSON (JSON nested too deeply " \
        f"(more than about {__import__('sys').getrecursionlimit()} levels))", r.stderr
