"""`score` on a stored Hub run re-grades against the commit and files the run recorded, from the local cache:
the Hub moving `main` changes nothing and is never asked; with that data gone, one line says so."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from hubdata import RBENCH, parquet, rbench_files, rbench_rows

from reasoneval.testing.fake_hub import FakeHub
from reasoneval.testing.procs import FakeServerProc


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def _verdicts(db: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT item_key, outcome, extracted FROM verdicts ORDER BY item_key").fetchall()


def _accuracy(stdout: str) -> float:
    table = next(t for t in json.loads(stdout)["tables"] if t["title"].startswith("R-Bench Top-1"))
    (row,) = [dict(zip(table["columns"], r, strict=True)) for r in table["rows"]]
    assert row["config"] == "t_en"
    return float(row["accuracy"])


def test_score_uses_the_recorded_commit_offline(hub_env: FakeHub, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"contains": "Question", "response": "Answer: A"}) + "\n", encoding="utf-8")
    server = FakeServerProc("--answers", str(answers))
    db = tmp_path / "runs.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        run = _cli(["run", "rbench:t_en", "--limit", "6", "--model", f"openai-compat/x@{server.url}",
                    "--store", str(db), "--no-progress", "--json"], env)
    finally:
        server.stop()
    assert run.returncode == 0, run.stderr
    run_id = json.loads(run.stdout)["runs"][0]["run"]["run_id"]
    first = _verdicts(db)
    assert _accuracy(run.stdout) == 16.67  # item 0 (gold A) of 6: every answer is A
    assert [o for _, o, _ in first].count("correct") == 1

    # the dataset's main moves on: every gold is now B
    recorded = hub_env.repos[RBENCH].refs["main"]
    rows = [{**r, "answer": "B"} for r in rbench_rows(7)]
    assert hub_env.commit(RBENCH, {**rbench_files(), "rbench-t_en/test-00000-of-00001.parquet": parquet(rows)}) \
        != recorded
    asked = sum(hub_env.requests.values())
    again = _cli(["score", run_id, "--store", str(db), "--json"], env)
    assert again.returncode == 0, again.stderr
    assert _verdicts(db) == first  # the recorded commit's golds, not main's
    assert _accuracy(again.stdout) == 16.67
    assert sum(hub_env.requests.values()) == asked  # the Hub was not contacted
    out = tmp_path / "export.jsonl"
    assert _cli(["export", run_id, str(out), "--store", str(db)], env).returncode == 0
    golds = {r["item"]: r["gold"] for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert golds["t_en/0"] == "A" and golds["t_en/1"] == "B"  # the recorded golds (main now says B for all)
    assert sum(hub_env.requests.values()) == asked

    # the cached release gone and the Hub answering 404: one line, no traceback
    shutil.rmtree(os.environ["HF_HOME"])
    del hub_env.repos[RBENCH]
    gone = _cli(["score", run_id, "--store", str(db)], env)
    assert gone.returncode == 2
    assert "Traceback" not in gone.stderr and len(gone.stderr.strip().splitlines()) == 1, gone.stderr
    assert f"run {run_id}" in gone.stderr and "not in the local Hub cache" in gone.stderr
    assert f"reasoneval data pull rbench --revision {recorded}" in gone.stderr  # how to bring it back
    assert sum(hub_env.requests.values()) == asked
    assert _verdicts(db) == first  # nothing stored was lost


def test_score_names_a_changed_cached_file(hub_env: FakeHub, tmp_path: Path) -> None:
    """Bytes in the cache that are not the recorded file are refused in one line (not re-scored against)."""
    server = FakeServerProc()
    db = tmp_path / "runs.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        run = _cli(["run", "rbench:t_en", "--limit", "2", "--model", f"openai-compat/x@{server.url}",
                    "--store", str(db), "--no-progress", "--json"], env)
    finally:
        server.stop()
    assert run.returncode == 0, run.stderr
    run_id = json.loads(run.stdout)["runs"][0]["run"]["run_id"]
    blob = next(Path(os.environ["HF_HOME"]).rglob("test-00000-of-00001.parquet"))
    target = blob.resolve()
    target.chmod(0o644)
    target.write_bytes(parquet([{**r, "answer": "F"} for r in rbench_rows(7)]))
    res = _cli(["score", run_id, "--store", str(db)], env)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "rbench-t_en/test-00000-of-00001.parquet" in res.stderr
