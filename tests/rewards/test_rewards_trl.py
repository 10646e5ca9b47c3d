"""finereason_reward / math_reward in TRL's convention, fed the rows of `reasoneval finereason export`."""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import pytest
from rewardrows import as_model, columns, wrong

from reasoneval.benchmarks.finereason.rewards import score_rows
from reasoneval.rewards import finereason_reward, math_reward
from reasoneval.rewards.extract import completion_text, final_answer
from reasoneval.rewards.math_check import math_verdict


def test_export_rows_score_their_own_answer_1_and_a_wrong_answer_0(mix_rows: list[dict[str, Any]]) -> None:
    kinds = Counter(r["task"] for r in mix_rows)
    assert kinds["math"] == 16 and kinds["state_checking"] == 12 and kinds["state_transition"] == 12
    assert Counter(r["label"] for r in mix_rows if r["source"] == "finereason") == {"Solvable": 12,
                                                                                    "Unsolvable": 12}
    cols = columns(mix_rows)
    prompts = [r["prompt"] for r in mix_rows]
    assert finereason_reward(prompts=prompts, completions=[as_model(a) for a in cols["answer"]], **cols) \
        == [1.0] * len(mix_rows)
    chat = [[{"role": "assistant", "content": as_model(a)}] for a in cols["answer"]]
    assert finereason_reward(prompts=prompts, completions=chat, **cols) == [1.0] * len(mix_rows)
    assert finereason_reward(prompts=prompts, completions=[wrong(r) for r in mix_rows], **cols) \
        == [0.0] * len(mix_rows)
    assert finereason_reward(prompts=prompts, completions=["I am not sure."] * len(mix_rows), **cols) \
        == [0.0] * len(mix_rows)


def test_reasons_and_per_kind_metrics(mix_rows: list[dict[str, Any]]) -> None:
    cols = columns(mix_rows)
    rows = score_rows([wrong(r) for r in mix_rows], cols)
    reasons = Counter((r.kind, r.reason) for r in rows)
    assert reasons[("state_checking", "wrong-label")] == 12
    assert reasons[("math", "not-equal")] == 16
    # repeating the current state: no move at a solvable state, a backtracking failure at an unsolvable one
    assert {reason for (kind, reason) in reasons if kind == "state_transition"} <= {"Multiple Moves",
                                                                                    "Backtracking Failure"}
    logged: dict[str, float] = {}
    half = [as_model(r["answer"]) if i % 2 else wrong(r) for i, r in enumerate(mix_rows)]
    got = finereason_reward(completions=half, log_metric=logged.__setitem__, trainer_state=object(),
                            completion_ids=[[1]] * len(mix_rows), **cols)
    assert got == [float(i % 2) for i in range(len(mix_rows))]
    for kind in ("math", "state_checking", "state_transition"):
        vals = [g for g, r in zip(got, mix_rows, strict=True) if r["task"] == kind]
        assert logged[f"finereason/{kind}"] == pytest.approx(sum(vals) / len(vals))


def test_math_reward_reads_final_answers_and_is_time_bounded() -> None:
    golds = ["72", "\\frac{1}{2}", "0.5", "3\\sqrt{2}"]
    good = ["... so 72 in all.\n#### 72", "The final answer is $\\boxed{0.5}$.", "Answer: $\\frac{1}{2}$",
            [{"role": "assistant", "content": "It is \\boxed{\\sqrt{18}}"}]]
    assert math_reward(completions=good, gold=golds) == [1.0] * 4
    bad = ["#### 71", "\\boxed{\\frac{1}{3}}", "no idea", "\\boxed{3\\sqrt{3}}"]
    assert math_reward(completions=bad, gold=golds) == [0.0] * 4
    # gold read from the worked answer when there is no gold column (MetaMathQA's "The answer is: ...")
    assert math_reward(completions=["The answer is: 1,200"], answer=["... The answer is: 1200"]) == [1.0]
    t = time.monotonic()
    bomb = math_verdict("1", "\\boxed{9^{9^{9^{9^{9}}}}}", timeout=1.0)
    assert bomb.reward == 0.0 and time.monotonic() - t < 15


def test_final_answer_and_completion_text() -> None:
    assert final_answer("x\nThe answer is: 18.") == "18"
    assert final_answer("<think>The answer is: 5</think>So \\boxed{7}") == "7"
    assert final_answer("We get 10.\n#### 1,000") == "1000"
    assert final_answer("\\boxed{\\text{(C)}}") == "(C)"
    assert final_answer("a long explanation without any conclusion\nspread over lines") is None
    assert completion_text([{"role": "user", "content": "q"},
                            {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]) == "a"


def test_bad_columns_are_one_line_errors(mix_rows: list[dict[str, Any]]) -> None:
    cols = columns(mix_rows[:3])
    with pytest.raises(ValueError, match=re.escape("column 'source' has 3 value(s) for 2 completion(s)")):
        finereason_reward(completions=["a", "b"], **cols)
    with pytest.raises(ValueError, match="row 0: no reward for source=None task=None"):
        finereason_reward(completions=["a"])
    puzzle_row = next(r for r in mix_rows if r["source"] == "finereason")
    with pytest.raises(ValueError, match="row 0: 'state' is not a FineReason state record"):
        finereason_reward(completions=["a"], source=["finereason"], task=[puzzle_row["task"]],
                          puzzle=[puzzle_row["puzzle"]], state=['{"inputs": 1}'])


def test_one_call_is_time_bounded_whatever_the_completions_hold(mix_rows: list[dict[str, Any]]) -> None:
    from reasoneval.benchmarks.finereason import reward_sandbox

    bomb = "\\boxed{9^{9^{9^{9^{9^{9}}}}}}"  # SymPy would compute this for ever
    math_rows = [r for r in mix_rows if r["source"] == "math"][:8]
    t = time.monotonic()
    got = score_rows([bomb] * len(math_rows), columns(math_rows), math_timeout=3.0, budget_s=2.0)
    assert time.monotonic() - t < 5.0  # 8 bombs x 3 s on 2 workers would be 12 s
    assert [r.reward for r in got] == [0.0] * 8 and {r.reason for r in got} == {"too-large"}  # never computed
    # a verdict that overruns its own timeout is killed and scores 0
    overrun = reward_sandbox._pool().submit(time.sleep, 30, timeout=0.5)
    assert reward_sandbox.result(overrun) == reward_sandbox.PuzzleResult(0.0, "timeout")
    # the pools are usable right after
    row = next(r for r in mix_rows if r["task"] == "state_checking")
    assert finereason_reward(completions=[row["answer"]], **columns([row])) == [1.0]
