"""Hostile completions in a reward call: each completion has a time budget of its own, so bombs never take the
rewards of correct completions and the call ends in bounded time."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rewardrows import as_model, columns

from reasoneval.benchmarks.finereason.rewards import finereason_reward
from reasoneval.rewards import functions as F
from reasoneval.rewards import math_check
from reasoneval.rewards.magnitude import too_large

BOMB = "The answer is \\boxed{9^{9^{9}}}"


def test_numbers_too_large_to_compute_are_found_in_the_text() -> None:
    for text in ("9^{9^{9}}", "9^{9^9}", "10^{10^{10}}", "1 + 9^{9^{9}}", "\\left(9\\right)^{9^{9}}",
                 "(3^2)^{9^{9}}", "100000000!", "{9}^{{9}^{9}}", "2^{1000000}", "(10^{6})!"):
        assert too_large(text), text
    for text in ("18", "2^{100000}", "2^{2^{10}}", "x^{9^{9}}", "\\frac{1}{2}", "0^{9^{9}}", "1^{9^9}", "3!",
                 "10^{-9^{9}}"):
        assert not too_large(text), text
    t = time.monotonic()
    assert not too_large("{" * 5000 + "9" + "}" * 5000 + "^9")  # deep nesting: not looked into, and fast
    assert too_large("(9)^{" * 600 + "9" + "}" * 600)
    assert time.monotonic() - t < 2.0
    assert math_check.math_verdict("1", BOMB) == math_check.MathReward(0.0, "too-large", "9^{9^{9}}")
    assert math_check.math_verdict("9^{9^{9}}", BOMB).reward == 1.0  # written as the gold is: right, without computing


def test_38_bombs_among_256_completions_change_no_correct_reward(mix_rows: list[dict[str, Any]]) -> None:
    math_rows = [r for r in mix_rows if r["source"] == "math"]
    rows = [math_rows[i % len(math_rows)] for i in range(256)]
    hostile = set(range(0, 256, 6)[:38])
    assert len(hostile) == 38
    completions = [BOMB if i in hostile else as_model(r["answer"]) for i, r in enumerate(rows)]
    t = time.monotonic()
    got = finereason_reward(completions=completions, **columns(rows))
    took = time.monotonic() - t
    assert [g for i, g in enumerate(got) if i not in hostile] == [1.0] * 218
    assert [g for i, g in enumerate(got) if i in hostile] == [0.0] * 38
    assert took < 30.0, took  # one worker per bomb for 5 s each would be ~95 s on 2 workers


def test_a_bomb_the_text_check_misses_still_takes_no_reward_from_others(
        mix_rows: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The structural rule, with the text check switched off: every completion's first look is its own, so
    correct answers queued behind bombs are decided although the call's budget ran out on the bombs."""
    monkeypatch.setattr(math_check, "too_large", lambda _s: False)
    math_rows = [r for r in mix_rows if r["source"] == "math"]
    jobs: list[F.MathJob | F.Start] = [F.MathJob(BOMB, "1") for _ in range(6)]
    jobs += [F.MathJob(as_model(r["answer"]), r["gold"]) for r in math_rows]
    t = time.monotonic()
    # 6 bombs x 3 s on 2 workers would use the whole 1 s budget before any correct answer ran
    got = F.score_jobs(jobs, math_timeout=3.0, budget_s=1.0, first_look_s=0.75)
    took = time.monotonic() - t
    assert [r.reward for r in got[6:]] == [1.0] * len(math_rows), [r.reason for r in got]
    assert [r.reward for r in got[:6]] == [0.0] * 6
    assert {r.reason for r in got[:6]} <= {"budget", "timeout"}
    assert took < 3 * 0.75 + 1.0 + 20.0, took  # 3 rounds of first looks, the budget, worker restarts
