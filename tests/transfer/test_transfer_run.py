"""End to end: `reasoneval run gsm8k|math|mmlu` against the fake Hub and a fake OpenAI-compatible model with
scripted answers; the stored verdicts and the printed table cells are the expected ones."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from transferdata import SCRIPTED, answers_file

from reasoneval.testing.procs import FakeServerProc


def _run(args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "reasoneval.cli", "run", *args, "-O", "revision=main", "--no-progress",
                          "--json"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout[res.stdout.index("{"):])


def _table(out: dict, title: str) -> dict:
    """The benchmark's table as printed (the report puts the model in front of each row)."""
    (t,) = [t for t in out["tables"] if t["title"].startswith(title)]
    assert t["columns"][0] == "model" and {r[0] for r in t["rows"]} == {"ckpt"}  # the display name
    return {**t, "columns": t["columns"][1:], "rows": [r[1:] for r in t["rows"]]}


def _verdicts(db: str) -> dict[str, tuple[str, str | None, str]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT item_key, outcome, extracted, method FROM verdicts").fetchall()
    return {key: (outcome, extracted, method) for key, outcome, extracted, method in rows}


def test_transfer_benchmarks_end_to_end(hub_env, tmp_path):
    server = FakeServerProc("--answers", answers_file(tmp_path / "answers.jsonl", SCRIPTED))
    db = str(tmp_path / "runs.db")
    model = f"openai-compat/ckpt@{server.url}"
    try:
        corrected = ["-O", "scoring=corrected"]  # the verdicts below are the harness's own reading
        gsm = _run(["gsm8k", "--model", model, "--store", db, *corrected])
        assert _table(gsm, "GSM8K accuracy")["rows"] == [["GSM8K", 4, 3, 75.0, 0, 0, 0]]

        math = _run(["math", "--model", model, "--store", db, *corrected])
        assert _table(math, "MATH accuracy (")["rows"] == [["MATH", 5, 3, 60.0, 1, 0, 0]]
        levels = {r[0]: r[1:4] for r in _table(math, "MATH accuracy per level")["rows"]}
        assert levels == {"Level 1": [1, 1, 100.0], "Level 2": [1, 1, 100.0], "Level 3": [1, 1, 100.0],
                          "Level 5": [2, 0, 0.0]}
        subjects = {r[0]: r[1:4] for r in _table(math, "MATH accuracy per subject")["rows"]}
        assert subjects == {"Algebra": [2, 1, 50.0], "Counting & Probability": [1, 0, 0.0],
                            "Number Theory": [1, 1, 100.0], "Precalculus": [1, 1, 100.0]}

        mmlu = _run(["mmlu", "--model", model, "--store", db, *corrected])
        assert _table(mmlu, "MMLU accuracy (")["rows"] == [["MMLU", 5, 4, 80.0, 0, 0, 0]]
        # official (the default): simple-evals' reading -- the FIRST "Answer: A?" counts, a bare box is no answer
        official = _run(["mmlu", "--model", model, "--store", str(tmp_path / "official.db")])
        assert _table(official, "MMLU accuracy (")["rows"] == [["MMLU", 5, 2, 40.0, 1, 0, 0]]
        cats = {r[0]: r[1:4] for r in _table(mmlu, "MMLU accuracy per category")["rows"]}
        assert cats == {"STEM": [2, 2, 100.0], "Humanities": [1, 1, 100.0], "Social Sciences": [1, 0, 0.0],
                        "Other": [1, 1, 100.0]}
        subj = {r[0]: r[1] for r in _table(mmlu, "MMLU accuracy per subject")["rows"]}
        assert subj["college_physics"] == "STEM" and len(subj) == 5
    finally:
        server.stop()
    v = _verdicts(db)
    assert v["main/0"] == ("correct", "7", "rule")
    assert v["main/1"] == ("correct", "2,500", "rule")
    assert v["main/2"] == ("correct", "\\frac{9}{2}", "rule")  # decided by math-verify (9/2 = 4.5)
    assert v["main/3"] == ("incorrect", "2", "rule")
    assert v["algebra/101"] == ("correct", "0.75", "rule")
    assert v["algebra/77"] == ("unanswerable", None, "unextractable")
    assert v["number_theory/9"] == ("correct", "2", "rule")  # "The answer is $2$" without a box
    assert v["precalculus/807"][0] == "correct"
    assert v["counting_and_probability/5"] == ("incorrect", "6", "rule")
    assert v["high_school_macroeconomics/0"] == ("incorrect", "C", "rule")
    assert v["anatomy/0"] == ("correct", "C", "rule")
    assert v["college_physics/0"] == ("correct", "B", "rule")  # the last "Answer:" wins


def test_cut_off_outputs_counted_once_for_every_table(hub_env, tmp_path):
    """Outputs inside a <think> never closed (finish_reason "stop") are cut off: the GSM8K table, the run summary
    and the reasoning table count the same outputs (one run counted 8 truncated in one table and 0.00% in
    another: the reasoning table knew only finish_reason "length"). Official scoring keeps their verdicts."""
    script = [("Gsm question zero", "<think>3+4=7, so the answer is 7"),  # unclosed: cut off, and right
              ("Gsm question one", "<think>1250*2"),  # unclosed: cut off, nothing to read
              ("Gsm question two", "Therefore, the final answer is: $\\boxed{4.5}$."),
              ("Gsm question three", "Therefore, the final answer is: $\\boxed{-2}$.")]
    server = FakeServerProc("--answers", answers_file(tmp_path / "answers.jsonl", script))
    db = str(tmp_path / "runs.db")
    try:
        off = _run(["gsm8k", "--model", f"openai-compat/ckpt@{server.url}", "--store", db])
        cor = _run(["gsm8k", "--model", f"openai-compat/ckpt@{server.url}", "--store", db, "-O", "scoring=corrected"])
    finally:
        server.stop()
    # columns: benchmark, n, correct, accuracy, unextractable, truncated, errors
    assert _table(off, "GSM8K accuracy")["rows"] == [["GSM8K", 4, 3, 75.0, 1, 2, 0]]
    assert _table(cor, "GSM8K accuracy")["rows"] == [["GSM8K", 4, 2, 50.0, 0, 2, 0]]
    for out in (off, cor):
        (reasoning,) = [t for t in out["tables"] if t["title"].startswith("Reasoning and thinking time")]
        col = reasoning["columns"].index("truncated %")
        assert [float(r[col]) for r in reasoning["rows"]] == [50.0]
        (run,) = out["runs"]
        assert run["stats"]["truncated"] == 2
