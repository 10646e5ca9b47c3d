"""Filters over stored runs (`--run`), the completion-token fallback, the seeded cap, recipe checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.builder.calls import Context
from reasoneval.builder.reasoning import CapParams, cap
from reasoneval.builder.recipe import run_recipe
from reasoneval.builder.rows import BuildError, read_rows

OPTS = {"A": "1", "B": "2", "C": "3", "D": "4", "E": "5", "F": "All other answers are incorrect"}


def _rows(tmp: Path) -> Path:
    p = tmp / "rbench-t_en.jsonl"
    p.write_text("".join(json.dumps({"id": f"r{i}", "question": f"Puzzle number {i}xq?", "options": OPTS,
                                     "answer": "B"}) + "\n" for i in range(1, 4)), encoding="utf-8")
    return p


def test_filters_read_stored_runs_and_fall_back_to_completion_tokens(tmp_path: Path, scripted_server) -> None:
    srv = scripted_server([("Puzzle number 1xq", "<think>" + "w " * 30 + "</think>ANSWER: B"),
                           ("Puzzle number 2xq", "ANSWER: B"),
                           ("Puzzle number 3xq", "<think>" + "w " * 30 + "</think>ANSWER: C")])
    data, db = _rows(tmp_path), str(tmp_path / "s.db")
    run = CliRunner().invoke(cli.app, ["run", "rbench:t_en", "--data", str(data), "--model",
                                       f"openai-compat/m@{srv.url}", "--store", db, "--no-progress", "--json",
                                       "--max-tokens", "64"], catch_exceptions=False)
    assert run.exit_code == 0, run.output
    run_id = json.loads(CliRunner().invoke(cli.app, ["runs", "--store", db, "--json"]).output)[0]["run"]

    out, rep = tmp_path / "easy-dropped.jsonl", tmp_path / "d.json"
    r = CliRunner().invoke(cli.app, ["build", "difficulty", str(data), str(out), "--run", run_id, "--max-pass", "0.5",
                                     "--store", db, "--report", str(rep)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [x["id"] for x in read_rows(out)] == ["r3"]  # r1, r2 answered correctly
    assert json.loads(rep.read_text())["report"]["pass_rates"] == {"r1": 1.0, "r2": 1.0, "r3": 0.0}

    out2, rep2 = tmp_path / "long.jsonl", tmp_path / "r.json"
    r = CliRunner().invoke(cli.app, ["build", "reasoning", str(data), str(out2), "--run", run_id[:8],
                                     "--min-tokens", "20", "--store", db, "--report", str(rep2)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [x["id"] for x in read_rows(out2)] == ["r1", "r3"]  # r2 answered without reasoning
    report = json.loads(rep2.read_text())["report"]
    assert report["token_source"] == "completion_tokens"  # the server reported no reasoning tokens
    assert "upper bound" in report["note"]


def test_cap_is_seeded_and_per_group() -> None:
    rows = [{"id": str(i), "subject": "S" if i < 8 else "T"} for i in range(10)] + [{"id": "x"}]
    a = cap(rows, CapParams(max=3, seed=1), Context())
    b = cap(rows, CapParams(max=3, seed=1), Context())
    c = cap(rows, CapParams(max=3, seed=2), Context())
    ids = [r["id"] for r in a.rows]
    assert ids == [r["id"] for r in b.rows] and ids != [r["id"] for r in c.rows]
    assert sum(r.get("subject") == "S" for r in a.rows) == 3 and {"8", "9", "x"} <= set(ids)
    assert a.report["capped"] == {"S": {"had": 8, "kept": 3}}


def test_recipe_rejects_unknown_steps_and_parameters_before_any_call(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text('{"id": "1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    for body, msg in (("- step: shuffle\n", "unknown step 'shuffle'"),
                      ("- step: options\n  modle: x\n", "unknown parameter(s) modle"),
                      ("- step: cap\n  max: many\n", "expected an integer")):
        (tmp_path / "r.yaml").write_text(f"input: in.jsonl\nsteps:\n{body}", encoding="utf-8")
        with pytest.raises(BuildError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            run_recipe(tmp_path / "r.yaml", tmp_path / "out", tmp_path / "s.db")
    assert not (tmp_path / "s.db").exists()
