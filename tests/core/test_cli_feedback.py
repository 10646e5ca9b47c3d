"""What a new user sees: bad numbers refused, empty selections refused, failures explained, Ctrl-C, `runs`,
read-only commands, tables that never break a word, CSV files, every written file announced."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from reasoneval.core.benchmark import Table
from reasoneval.report import render
from reasoneval.report.collect import RunView, merge


def _cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


@pytest.mark.parametrize("args, option", [(["--limit", "0"], "--limit"), (["--limit", "-3"], "--limit"),
                                          (["--max-tokens", "0"], "--max-tokens"),
                                          (["--samples", "0"], "--samples"),
                                          (["--concurrency", "0"], "--concurrency")])
def test_non_positive_numbers_are_refused(tmp_path: Path, args: list[str], option: str) -> None:
    p = _cli("run", "toy:a", *args, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    msg = " ".join(p.stderr.replace("│", " ").split())  # typer draws usage errors in a box
    assert f"Invalid value for '{option}'" in msg and "greater than or equal to 1" in msg
    assert not (tmp_path / "reasoneval.db").exists()


def test_subset_mode_pair_that_selects_nothing(tmp_path: Path) -> None:
    p = _cli("run", "korbench:operation", "--mode", "mixed", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    (line,) = [x for x in p.stderr.splitlines() if x.strip()]
    assert line.startswith("error: korbench:operation has no items in mode 'mixed'")
    assert "Multi-Q" in line
    assert not (tmp_path / "reasoneval.db").exists()


def test_unknown_benchmark_lists_the_builtin_ones(tmp_path: Path) -> None:
    p = _cli("run", "nosuch", cwd=tmp_path)
    assert p.returncode == 2
    for name in ("korbench", "finereason", "rbench", "general365"):
        assert name in p.stderr


def test_failed_calls_are_explained_and_all_failed_exits_nonzero(tmp_path: Path, make_server) -> None:
    bad = make_server("--delay", "0", "--faults", "400")
    p = _cli("run", "toy:a", "--limit", "4", "--model", f"openai-compat/m@{bad.url}", "--no-progress",
             cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert "4 x HTTP 400" in p.stderr
    assert "every call failed (4 of 4)" in p.stderr


def test_some_failed_calls_are_explained_and_exit_three(tmp_path: Path, make_server) -> None:
    flaky = make_server("--delay", "0", "--faults", "400", "--fail-every", "2")
    p = _cli("run", "toy:a", "--limit", "6", "--model", f"openai-compat/m@{flaky.url}", "--no-progress",
             cwd=tmp_path)
    assert p.returncode == 3, p.stderr  # the run finished, but not every item has an answer
    assert "3 x HTTP 400" in p.stderr
    assert "3 of 6 items failed" in p.stderr and "(exit status 3)" in p.stderr
    assert "toy (zero-shot)" in p.stdout  # the table of the answered items is still printed
    again = _cli("run", "toy:a", "--limit", "6", "--model", f"openai-compat/m@{flaky.url}", "--no-progress",
                 "--retry-errors", cwd=tmp_path)  # the faults hit each prompt's first request only
    assert again.returncode == 0, again.stderr
    assert "0 errors" in again.stderr


def test_run_id_first_and_ctrl_c_says_how_to_resume(tmp_path: Path, make_server) -> None:
    slow = make_server("--delay", "0.5")
    proc = subprocess.Popen([sys.executable, "-m", "reasoneval.cli", "run", "toy:a", "--concurrency", "1",
                             "--model", f"openai-compat/m@{slow.url}", "--no-progress"],
                            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert first.startswith("run ") and "toy:a" in first
    run_id = first.split()[1].rstrip(":")
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"interrupted: run {run_id}" in err and "re-run the same command to resume" in err
    assert "Traceback" not in err
    # and the same command resumes it
    done = _cli("run", "toy:a", "--concurrency", "8", "--model", f"openai-compat/m@{slow.url}", "--no-progress",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"run {run_id} (resumed)" in done.stderr


def test_runs_lists_stored_runs(tmp_path: Path, fake_server) -> None:
    for sub in ("a", "b"):
        r = _cli("run", f"toy:{sub}", "--limit", "6", "--limit-mode", "first",
                 "--model", f"openai-compat/m@{fake_server.url}", "--no-progress", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    p = _cli("runs", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    runs = json.loads(p.stdout)
    assert [(r["benchmark"], r["subset"], r["mode"], r["items"]) for r in runs] == [
        ("toy", "a", "zero-shot", 6), ("toy", "b", "zero-shot", 6)]
    # toy gold is "wrong" for every third item: 4 of 6 correct
    assert [r["accuracy"] for r in runs] == [66.67, 66.67]
    assert all(r["model"] == f"openai-compat/m@{fake_server.url}" and r["updated"] for r in runs)
    text = _cli("runs", cwd=tmp_path)
    assert runs[0]["run"] in text.stdout


@pytest.mark.parametrize("cmd", [["runs"], ["report", "abc"], ["export", "abc", "out.jsonl"], ["score", "abc"]])
def test_read_only_commands_never_create_a_store(tmp_path: Path, cmd: list[str]) -> None:
    p = _cli(*cmd, cwd=tmp_path)
    assert p.returncode == 2
    assert "error: no store at reasoneval.db" in p.stderr
    assert not (tmp_path / "reasoneval.db").exists()


def test_terminal_tables_never_break_a_word(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    long_model = "openai-compat/Qwen2.5-72B-Instruct-GPTQ-Int4@http://127.0.0.1:8000/v1"
    render.to_terminal([Table("korbench (zero-shot, official scoring)", ["model", "category", "accuracy"],
                              [[long_model, "counterfactual", 12.5]])])
    out = capsys.readouterr().out
    assert long_model in out and "counterfactual" in out
    # a console the caller sized is respected, and words still stay whole where they fit
    con = Console(width=200, record=True)
    render.to_terminal([Table("t", ["a"], [["one two"]])], console=con)
    assert "one two" in con.export_text()


def test_terminal_tables_never_crop_a_column(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the README's main job printed its per-rule-tag table on an 80-column pipe with the last column cut
    # to "be" (Rich crops what it cannot collapse); every column and every row's right border must show
    monkeypatch.setenv("COLUMNS", "80")
    cols = ["model", "category", "tag", "rules", "n", "correct", "accuracy", "worst rule", "best rule"]
    row = ["llamacpp/default", "operation", "Basic Level", 1, 10, 0, 0.0, 0.0, 12.5]
    render.to_terminal([Table("KOR-Bench accuracy per rule tag (zero-shot)", cols, [row])])
    lines = capsys.readouterr().out.splitlines()
    body = [ln.rstrip() for ln in lines if ln[:1] in "┏┃┡│└"]
    assert body and all(ln[-1] in "┓┃┩│┘" for ln in body)
    text = "\n".join(lines)
    assert "best rule" in text and "12.50" in text and "worst rule" in text


def test_terminal_tables_on_a_real_terminal_collapse_or_widen_without_cropping(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # on a terminal Rich first tries to wrap cells between words; only a table that still does not fit is
    # printed at its natural width
    import io

    out = io.StringIO()

    def terminal(width: int = 60, **_: object) -> Console:
        return Console(file=out, force_terminal=True, width=width, color_system=None)

    # the renderer imports Rich when it draws (file formats never load it): every console it makes is this one
    monkeypatch.setattr("rich.console.Console", terminal)
    cols = ["model", "category", "tag", "rules", "n", "correct", "accuracy", "worst rule", "best rule"]
    row = ["llamacpp/default", "operation", "Basic Level", 1, 10, 0, 0.0, 0.0, 12.5]
    render.to_terminal([Table("wide", cols, [row]), Table("narrow", ["a", "b"], [["one two three", "x"]])])
    lines = out.getvalue().splitlines()
    body = [ln.rstrip() for ln in lines if ln[:1] in "┏┃┡│└"]
    assert body and all(ln[-1] in "┓┃┩│┘" for ln in body)
    assert "12.50" in out.getvalue() and "best rule" in out.getvalue()
    assert max(len(ln) for ln in lines if "one two three" in ln) <= 60


def _view(model: str, mode: str, run_id: str, options: dict[str, str] | None = None) -> RunView:
    run = {"run_id": run_id, "model": model, "mode": mode, "subset": "operation",
           "spec": {"params": {"max_tokens": 256}, "options": options or {}, "seed": 0}}
    return RunView(run, [], [Table("korbench", ["category", "accuracy"], [["operation", 10.0]])], {})


def test_merged_rows_show_what_differs() -> None:
    (t,) = merge([_view("m", "zero-shot", "r1"), _view("m", "three-shot", "r2")])
    assert t.columns == ["model", "mode", "category", "accuracy"]
    assert [r[:2] for r in t.rows] == [["m", "zero-shot"], ["m", "three-shot"]]
    (t,) = merge([_view("m", "zero-shot", "r1", {"scoring": "official"}),
                  _view("m", "zero-shot", "r2", {"scoring": "corrected"})])
    assert t.columns[:2] == ["model", "scoring"]
    (t,) = merge([_view("m", "zero-shot", "r1"), _view("m", "zero-shot", "r2")])
    assert t.columns[:2] == ["model", "run"] and {r[1] for r in t.rows} == {"r1", "r2"}
    (t,) = merge([_view("m", "zero-shot", "r1")])
    assert t.columns == ["model", "category", "accuracy"]


def test_report_csv_one_table_per_file_and_files_announced(tmp_path: Path, fake_server) -> None:
    r = _cli("run", "toy:a", "--limit", "3", "--model", f"openai-compat/m@{fake_server.url}",
             "--no-progress", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = json.loads(r.stdout)["runs"][0]["run"]["run_id"]
    tables = [Table("first table", ["a", "b"], [[1, "x,y"]]), Table("second: other", ["c"], [["z"]])]
    files = render.csv_files(tables, tmp_path / "t.csv")
    assert [p.name for p, _ in files] == ["t.csv", "t-2-second-other.csv"]
    for (p, text), t in zip(files, tables, strict=True):
        p.write_text(text)
        got = list(csv.reader(p.open()))
        assert got[0] == t.columns and len(got) == 1 + len(t.rows)
    rep = _cli("report", run_id, "--csv", "out.csv", "--md", "out.md", "--html", "out.html", cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    for name in ("out.csv", "out.md", "out.html"):
        assert f"wrote {name}" in rep.stderr and (tmp_path / name).exists()
    rows = list(csv.reader((tmp_path / "out.csv").open()))
    assert rows[0][:2] == ["model", "subset"] and all(len(x) == len(rows[0]) for x in rows)
    exp = _cli("export", run_id, "rows.jsonl", cwd=tmp_path)
    assert exp.returncode == 0 and "wrote 3 rows to rows.jsonl" in exp.stderr


def test_readme_finereason_label_command(tmp_path: Path, shared_dir: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "reasoneval finereason label" in x)
    cmd = line.split("#")[0].split()
    src = shared_dir / "data" / "finereason" / "sudoku_states.json"
    lines = src.read_text().splitlines()[:5]
    (tmp_path / cmd[-1]).write_text("\n".join(lines) + "\n")
    p = subprocess.run([sys.executable, "-m", "reasoneval.cli", *cmd[1:]], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120, env={**os.environ})
    assert p.returncode == 0, p.stderr
    assert "labelled 5 states; 0 label(s) changed" in p.stderr
