"""Control codes in imported names (model, file and member names) never reach a terminal or an HTML page raw:
`import`'s lines, `runs`' model column, `report`'s last line, `show`, `--json` and the HTML report show them as
visible escapes (``\\x1b``) or control pictures (U+241B)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core.safetext import html_safe, json_shown, shown

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "harness_logs"
EVIL = "m\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eX"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_shown_and_html_safe() -> None:
    assert shown(EVIL) == "m\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eX"
    assert shown("a\nb\tc", keep_newlines=True) == "a\nb\tc" and shown("a\nb") == "a\\x0ab"
    assert html_safe("<p>\x1b[31m\x07a\x9b\n</p>") == "<p>\u241b[31m\u2407a\ufffd\n</p>"
    assert json.loads(json_shown({"m": EVIL})) == {"m": EVIL} and not RAW.search(json_shown({"m": EVIL}))


def test_imported_names_with_control_codes_are_shown_escaped(tmp_path: Path) -> None:
    src = tmp_path / "logs" / "m"
    src.mkdir(parents=True)
    for f in (FIX / "lm-eval" / "fake-chat").iterdir():
        shutil.copy(f, src / f.name)
    (results,) = src.glob("results_*.json")
    doc = json.loads(results.read_text())
    doc["model_name"] = EVIL
    results.write_text(json.dumps(doc))
    (samples,) = src.glob("samples_*.jsonl")
    lines = samples.read_text().split("\n")
    lines[4] = "not json"
    samples.write_text("\n".join(lines))
    evil_file = samples.with_name("samples_korbench_operation\x1b[2J\x07_2026-12-02T09-03-26.615803.jsonl")
    samples.rename(evil_file)
    store = str(tmp_path / "s.db")

    code, out, err = run("import", "korbench", str(src), "--store", store, "--as", "korbench:operation")
    assert code == 1
    assert not RAW.search(out) and not RAW.search(err), (out, err)
    assert "m\\x1b]0;pwned\\x07\\x1b[2J" in out
    assert "samples_korbench_operation\\x1b[2J\\x07_2026" in err and ":5: invalid JSON" in err  # the file named
    code, out, _ = run("import", "korbench", str(src), "--store", store, "--as", "korbench:operation", "--json")
    assert not RAW.search(out) and json.loads(out)[0]["model"] == EVIL  # the JSON value is kept exactly
    run_id = json.loads(out)[0]["run"]

    code, out, err = run("runs", "--store", store)
    assert code == 0 and not RAW.search(out + err) and "\\x1b" in out
    code, out, _ = run("runs", "--store", store, "--json")
    assert not RAW.search(out) and json.loads(out)[0]["model"] == EVIL
    code, out, err = run("report", run_id, "--store", store, "--html", str(tmp_path / "r.html"), "--print")
    assert code == 0, err
    assert not RAW.search(out + err)
    assert f"{run_id} m\\x1b]0;pwned\\x07" in out.strip().splitlines()[-1]  # report's last line
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", page) and "\u241b" in page
    code, out, err = run("show", "operation/1", run_id, run_id, "--store", store)
    # the name as the tables show it (display names: control codes as "?"), never raw
    assert code == 0 and not RAW.search(out + err) and "m?]0;pwned" in out, (out, err)
    code, out, err = run("show", "operation/1", run_id, run_id, "--store", store, "--html", str(tmp_path / "s.html"))
    page = (tmp_path / "s.html").read_text(encoding="utf-8")
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", page) and ("\u241b" in page or "m?]0;pwned" in page)
