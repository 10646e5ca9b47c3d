"""Shared helpers of the reward tests: a real `reasoneval finereason export` and answers as a model writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from reasoneval.benchmarks.finereason.cli import app as fr_app

MATH = [{"query": f"Tom has {i} apples and buys {i + 3} more. How many apples does he have?",
         "response": f"He has {i} + {i + 3} = {2 * i + 3} apples.\nThe answer is: {2 * i + 3}"} for i in range(30)]
MATH += [{"query": "What is one half of one?", "response": "One half is $\\boxed{\\frac{1}{2}}$."},
         {"query": "Natalia sold 48 clips in April and half as many in May. How many in all?",
          "response": "In May she sold 48/2 = 24.\nIn all 48 + 24 = 72.\n#### 72"}]


def export_rows(tmp: Path, *args: str) -> list[dict[str, Any]]:
    math = tmp / "MATH.jsonl"
    math.write_text("".join(json.dumps(r) + "\n" for r in MATH), encoding="utf-8")
    res = CliRunner().invoke(fr_app, ["export", str(math), *args])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]


def columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """What TRL hands a reward: every column but ``prompt`` as a keyword list."""
    return {k: [r[k] for r in rows] for k in rows[0] if k != "prompt"}


def as_model(answer: str) -> str:
    """The row's own answer the way a reasoning model writes it: thoughts, some prose, then the answer."""
    return ("<think>\nLet me check each option carefully. Maybe (B)? No, wait.\n</think>\n"
            "Working through the state step by step, I conclude.\n\n" + answer)


def wrong(row: dict[str, Any]) -> str:
    if row["task"] == "state_checking":
        return "Answer: (B)" if "(A)" in row["answer"] else "Answer: (A)"
    if row["task"] == "state_transition":
        return "Next state: " + json.dumps(json.loads(row["state"])["inputs"]["current"])  # no move at all
    other = "\\frac{1}{3}" if "frac" in row["gold"] else f"{float(row['gold']) + 1:g}"
    return f"So the total is {other}.\nThe answer is: {other}"
