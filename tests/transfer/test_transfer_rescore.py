"""``reasoneval rescore gsm8k|math|mmlu FILE [--jsonl] [--diff]``: rows in each release's own format plus a
``response`` field; one JSON object per row in input order; bad rows named by file and line; ``--diff`` names
the cause of every official/corrected difference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", "rescore", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def _write(path: Path, rows: list[object]) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_gsm8k_rows_in_order_bad_rows_named_and_diff_causes(tmp_path: Path) -> None:
    f = _write(tmp_path / "gsm.jsonl", [
        {"question": "Q1", "answer": "5 apples #### 72", "response": "Therefore, the final answer is: $\\boxed{72}$."},
        {"question": "Q2", "answer": "#### 18", "response": "<think>the answer is 18", "finish_reason": "length"},
        {"question": "Q3", "answer": "#### 5", "response": "<think>\\boxed{5}</think>\nSo the total is 6."},
        {"question": "Q4", "answer": "#### 5"},
        "not json",
        {"question": "Q5", "answer": "#### 25", "response": "The answer is \\boxed{25\\%}"},
        {"question": "Q6", "answer": "#### 7", "response": "I think 7 apples."},
    ])
    r = _cli("gsm8k", f, "--jsonl", "--diff", cwd=tmp_path)
    assert r.returncode == 1  # bad rows
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["where"].rsplit(":", 1)[1] for x in rows] == ["1", "2", "3", "6", "7"]  # input order
    # official = math-verify on the raw text: the cut-off answer is read (and flagged), the box inside <think>
    # counts (the only box), 25% is 0.25, "7 apples" is its last number
    assert [x["correct"] for x in rows] == [True, True, True, False, True]
    assert [x["cut_off"] for x in rows] == [False, True, False, False, False]
    assert "gsm.jsonl: row 4: field 'response'" in r.stderr and "gsm.jsonl:5: invalid JSON" in r.stderr
    diff = [ln for ln in r.stderr.splitlines() if "\t" in ln]
    causes = {ln.split("\t")[3]: ln.split("\t")[-1] for ln in diff}
    assert set(causes) == {"1", "2", "4", "5"}  # ids: rows counted from 0 in the file, bad ones included
    assert causes["1"].startswith("cut-off output")
    assert "<think> removed" in causes["2"]
    assert causes["4"].startswith("comparison of '25\\\\%'")
    assert causes["5"].startswith("extraction: corrected finds no box")
    assert "official vs corrected: 4 disagreements in 5 items" in r.stderr


def test_mmlu_and_math_release_rows(tmp_path: Path) -> None:
    mmlu = _write(tmp_path / "mmlu.jsonl", [
        {"question": "2+2?", "subject": "elementary_mathematics", "choices": ["1", "2", "3", "4"], "answer": 3,
         "response": "Answer: D"},
        {"question": "2+2?", "subject": "elementary_mathematics", "choices": ["1", "2", "3", "4"], "answer": 3,
         "response": "Answer: A? No.\nAnswer: D"},  # simple-evals takes the first
        {"question": "2+2?", "subject": "elementary_mathematics", "choices": ["1", "2", "3", "4"], "answer": 3,
         "response": "Answer: d"},  # matched, and "d" is not "D"
    ])
    r = _cli("mmlu", mmlu, "--jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["correct"] for x in r.stdout.splitlines()] == [True, False, False]
    r = _cli("mmlu", mmlu, "--jsonl", "--scoring", "corrected", cwd=tmp_path)
    assert [json.loads(x)["correct"] for x in r.stdout.splitlines()] == [True, True, True]
    math = _write(tmp_path / "math.jsonl", [
        {"problem": "P", "solution": "So $\\boxed{\\frac{3}{4}}$.", "answer": "\\frac{3}{4}", "subject": "Algebra",
         "level": 1, "unique_id": "test/algebra/1.json", "response": "The answer is $\\boxed{0.75}$"},
        {"problem": "P", "solution": "So $\\boxed{\\frac{3}{4}}$.", "answer": "\\frac{3}{4}", "subject": "Algebra",
         "level": 1, "unique_id": "test/algebra/1.json", "response": "\\fbox{3/4}"},
    ])
    r = _cli("math", math, "--jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["correct"] for x in r.stdout.splitlines()] == [True, False]
