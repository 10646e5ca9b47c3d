"""Hostile completions are scored by GSM8K, MATH and MMLU without executing anything, in bounded time, and
never as correct."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from reasoneval.core import registry
from reasoneval.core.values import Completion, Item, Outcome
from reasoneval.runner.verdict_of import score_completion

BOUND_S = 30.0  # per verdict: one math-verify timeout plus a worker respawn at most


def payloads(marker: Path) -> list[str]:
    cmd = f"__import__('os').system('touch {marker}')"
    return [f"\\boxed{{{cmd}}}", f"The final answer is {cmd}", f"#### {cmd}", f"Answer: {cmd}",
            "\\boxed{10^{10^{10^{10}}}}", "\\boxed{" + "9" * 3000 + "^{" + "9" * 3000 + "}}",
            "x" * 5_000_000 + " \\boxed{1}", "\\boxed{" * 200_000, "#### " * 300_000, "the answer is " * 200_000,
            "Answer: " * 300_000, "{" * 100_000 + "}" * 10]


def items(tmp: Path) -> list[tuple[str, Item]]:
    rows = {"gsm8k": {"question": "q", "answer": "#### 1"},
            "math": {"problem": "p", "answer": "\\frac{1}{2}", "subject": "Algebra", "level": 3},
            "mmlu": {"question": "q", "subject": "virology", "choices": ["a", "b", "c", "d"], "answer": 1}}
    out = []
    for name, row in rows.items():
        path = tmp / f"{name}.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        b = registry.create(name, {"data": str(path)})
        sub = next(s for s in b.subsets() if b.load(s, b.default_mode))
        out.append((name, b.load(sub, b.default_mode)[0]))
    return out


@pytest.mark.timeout(900)
def test_hostile_completions_are_inert_and_bounded(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for name, item in items(tmp_path):
        bench = registry.get(name)
        for text in payloads(marker):
            t0 = time.monotonic()
            v = score_completion(bench, item, Completion(text=text, finish_reason="stop"), bench.default_mode)
            assert time.monotonic() - t0 < BOUND_S, (name, text[:40])
            assert v.outcome is not Outcome.CORRECT or text.startswith("x" * 100), (name, text[:40], v)
            assert not marker.exists(), f"{name} executed {text[:60]!r}"
