"""Hostile completions are scored by every benchmark without executing anything, each in bounded time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reasoneval.core import registry
from reasoneval.core.values import Completion, Item, Outcome
from reasoneval.runner.verdict_of import score_completion

FIXTURES = Path(__file__).parent.parent / "fixtures"
BOUND_S = 30.0  # per item: includes one sandbox timeout (SymPy / math-verify) plus process respawn


def payloads(marker: Path) -> list[str]:
    cmd = f"__import__('os').system('touch {marker}')"
    return [
        f"[[{cmd}]]",
        f"[[{cmd} = 24]]",
        f"\\boxed{{{cmd}}}",
        "[[10^{10^{10}}]]",
        "\\boxed{10^{10^{10^{10}}}}",
        "[[" + "9" * 5000 + "**" + "9" * 5000 + "]]",
        "x" * 5_000_000 + " [[1]]",
        "[[" * 1_000_000,
        "[[" + "\\text{" * 300_000 + "]]",
        "\\boxed{" * 200_000,
        "ANSWER: " * 300_000,
        "[[ (" * 100_000 + "]]",
        "{" * 100_000 + "}" * 10,
    ]


def korbench_items() -> list[Item]:
    b = registry.get("korbench")
    ops = {it.id: it for it in b.load("operation", "zero-shot")}
    puz = {it.id: it for it in b.load("puzzle", "zero-shot")}
    # 18: SymPy LaTeX comparison; 241: matrices; 91/95: 24-points and math-path comparators (eval upstream)
    return [ops["18"], ops["241"], puz["91"], puz["85"], b.load("cipher", "zero-shot")[0]]


def other_items() -> list[tuple[str, Item]]:
    out: list[tuple[str, Item]] = []
    data = {"general365": FIXTURES / "general365" / "own.jsonl", "rbench": FIXTURES / "rbench" / "own"}
    for name in ("general365", "rbench"):
        b = registry.create(name, {"data": str(data[name])})
        for sub in b.subsets():
            try:
                items = b.load(sub, b.default_mode)
            except Exception:
                continue
            out.extend((name, it) for it in items[:2])
            if out and out[-1][0] == name:
                break
    return out


@pytest.mark.timeout(900)
def test_hostile_completions_are_inert_and_bounded(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    cases = [("korbench", it) for it in korbench_items()] + other_items()
    assert {n for n, _ in cases} == {"korbench", "general365", "rbench"}
    slowest = 0.0
    for name, item in cases:
        bench = registry.get(name)
        for text in payloads(marker):
            t0 = time.monotonic()
            v = score_completion(bench, item, Completion(text=text, finish_reason="stop"), bench.default_mode)
            dt = time.monotonic() - t0
            slowest = max(slowest, dt)
            assert dt < BOUND_S, (name, item.key, text[:40], dt)
            assert v.outcome is not Outcome.CORRECT or text == "x" * 5_000_000 + " [[1]]", (name, item.key,
                                                                                            text[:40])
            assert not marker.exists(), f"{name} {item.key} executed {text[:60]!r}"
    print(f"slowest hostile verdict: {slowest:.2f}s")
