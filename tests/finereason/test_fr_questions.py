"""Fresh end-to-end question sets from the CLI (difficulty knobs) run and score like released ones."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.engines.graphcoloring import chromatic_number
from reasoneval.benchmarks.finereason.engines.sudoku import count_solutions, parse_grid
from reasoneval.benchmarks.finereason.questions import generate_questions, parse_difficulty
from reasoneval.core.values import Outcome
from reasoneval.testing.procs import FakeServerProc

E2E = "end-to-end"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_knobs_shape_the_instances() -> None:
    sud = generate_questions("sudoku", 3, 5, parse_difficulty("sudoku", ["empty=52-54"]))
    for rec in sud:
        grid = parse_grid(rec["inputs"]["initial"])
        assert 52 <= sum(1 for v in grid if v == 0) <= 54 and count_solutions(grid, 2) == 1
    gc = generate_questions("graphcoloring", 3, 5, parse_difficulty("graphcoloring", ["vertices=6-8", "colors=3-3"]))
    for rec in gc:
        g = rec["inputs"]["graph"]
        assert 6 <= len(g) <= 8 and rec["inputs"]["chromatic_number"] == chromatic_number(g) == 3
    g24 = generate_questions("game24", 4, 5, parse_difficulty("game24", ["numbers=2-6"]))
    assert all(all(2 <= int(x) <= 6 for x in r["inputs"]["initial_state"]) for r in g24)
    assert generate_questions("game24", 4, 5, parse_difficulty("game24", ["numbers=2-6"])) == g24  # seeded
    for bad in (["empty=70"], ["colors=3"], ["empty=9-1"], ["empty"]):
        with pytest.raises(ValueError):
            parse_difficulty("sudoku", bad)


def test_generated_questions_run_and_score(tmp_path: Path) -> None:
    qfile = tmp_path / "fresh_game24.json"
    gen = _cli("generate", "finereason", "--puzzle", "game24", "--questions", "--n", "4", "--seed", "3",
               "-D", "numbers=1-9")
    assert gen.returncode == 0, gen.stderr
    qfile.write_text(gen.stdout, encoding="utf-8")
    assert len(gen.stdout.splitlines()) == 4

    bench = FineReason()
    bench.configure({"data": str(qfile)})
    items = bench.load("game24", E2E)
    assert [it.data["inputs"] for it in items] == [json.loads(x)["inputs"] for x in gen.stdout.splitlines()]
    for it in items:  # a reference solution exists and the scorer accepts it; a wrong one is wrong
        assert bench.score(it, f"Solution: {it.gold}", E2E).outcome is Outcome.CORRECT
        assert bench.score(it, "Solution: 1 + 1 = 24", E2E).outcome is not Outcome.CORRECT

    # the same file through `reasoneval rescore` (scored as released items are)
    rows = tmp_path / "answers.jsonl"
    rows.write_text("".join(json.dumps({"puzzle": "game24", "task": "e2e", "inputs": it.data["inputs"],
                                        "response": f"Solution: {it.gold}"}) + "\n" for it in items))
    res = _cli("rescore", "finereason", str(rows), "--jsonl")
    assert res.returncode == 0, res.stderr
    assert [json.loads(x)["correct"] for x in res.stdout.splitlines()] == [True] * 4

    # and through `reasoneval run ... --mode end-to-end --data FILE` against a fake server
    server = FakeServerProc()
    db = tmp_path / "r.db"
    try:
        run = _cli("run", "finereason:game24", "--mode", E2E, "--data", str(qfile), "--model",
                   f"openai-compat/x@{server.url}", "--store", str(db), "--no-progress", "--json")
        assert run.returncode == 0, run.stderr
        assert server.stats()["requests"] == 4
    finally:
        server.stop()
    with sqlite3.connect(db) as con:
        (spec,) = [json.loads(r[0]) for r in con.execute("SELECT spec_json FROM runs")]
        n_verdicts = con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    assert spec["options"]["data"] == str(qfile) and spec["data_version"] not in ("", "missing")
    assert n_verdicts == 4
