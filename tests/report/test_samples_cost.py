"""pass@k / maj@k against hand computations; the cost table from a user's price file (None usage included)."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report.collect import RunView
from reasoneval.report.cost import Price, PriceError, cost_table, load_prices, price_for, run_cost
from reasoneval.report.samples import ks_for, majority_correct, pass_at_k, sample_stats, samples_table


def _row(key: str, sample: int, outcome: Outcome, extracted: str | None, usage: Any = None,
         error: str | None = None, reasoning: int | None = None) -> ScoredRow:
    c = Completion("text", "stop", usage if usage is not None else Usage(100, 50), 0.1, error,
                   reasoning_tokens=reasoning)
    return ScoredRow(key, key.split("/")[0], sample, [Turn(Prompt.chat("q"), c, Verdict(outcome, extracted, "m"))])


C, W, U, E = Outcome.CORRECT, Outcome.INCORRECT, Outcome.UNANSWERABLE, Outcome.ERROR


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k), abs=1e-12)
    # by hand: n=4, c=1, k=2 -> 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 3, 3) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_majority_vote_ties_and_missing_answers() -> None:
    s = SimpleNamespace
    assert majority_correct([s(index=0, correct=False, extracted="3"), s(index=1, correct=True, extracted="4"),
                             s(index=2, correct=True, extracted="4")])  # type: ignore[list-item]
    # tie 1-1: the answer seen first wins
    assert not majority_correct([s(index=0, correct=False, extracted="3"),  # type: ignore[list-item]
                                 s(index=1, correct=True, extracted="4")])
    # samples without an answer do not vote
    assert majority_correct([s(index=0, correct=False, extracted=None), s(index=1, correct=False, extracted=None),
                             s(index=2, correct=True, extracted="4")])  # type: ignore[list-item]
    assert not majority_correct([s(index=0, correct=False, extracted=None)])  # type: ignore[list-item]
    assert ks_for(4) == [1, 2, 4] and ks_for(5) == [1, 2, 4, 5] and ks_for(2) == [1, 2]


def _four_sample_rows() -> list[ScoredRow]:
    """3 items x 4 samples, hand-checked below; one failed call on item c."""
    return [
        # item a: C W W C  (c=2), answers 7 3 3 7 -> maj@2: {7,3} tie -> 7 correct; maj@4: tie 2-2 -> 7 correct
        _row("x/a", 0, C, "7"), _row("x/a", 1, W, "3"), _row("x/a", 2, W, "3"), _row("x/a", 3, C, "7"),
        # item b: W W C W (c=1), answers 1 1 5 2 -> maj@2: 1 wrong; maj@4: 1 wrong
        _row("x/b", 0, W, "1"), _row("x/b", 1, W, "1"), _row("x/b", 2, C, "5"), _row("x/b", 3, W, "2"),
        # item c: U C C + error (3 answered samples, c=2): answers None 9 9 -> maj@2: 9 correct; out of k=4
        _row("x/c", 0, U, None), _row("x/c", 1, C, "9"), _row("x/c", 2, C, "9"),
        _row("x/c", 3, E, None, error="HTTP 500"),
    ]


def test_sample_stats_against_a_hand_computation() -> None:
    st = sample_stats(_four_sample_rows(), 4)
    assert st is not None and st.items == 3
    # pass@1 = mean(c/n) = (2/4 + 1/4 + 2/3) / 3
    assert st.pass_at[1] == pytest.approx(100 * (0.5 + 0.25 + 2 / 3) / 3)
    # pass@2: a 1 - C(2,2)/C(4,2) = 5/6; b 1 - C(3,2)/C(4,2) = 1/2; c 1 - C(1,2)/C(3,2) = 1
    assert st.pass_at[2] == pytest.approx(100 * (5 / 6 + 0.5 + 1) / 3)
    # pass@4 over a and b only (c has 3 answered samples): 1 and 1
    assert st.pass_at[4] == pytest.approx(100.0) and st.short[4] == 1 and st.short[2] == 0
    assert st.maj_at[2] == pytest.approx(100 * 2 / 3)  # a (tie -> 7) right, b wrong, c (9) right
    assert st.maj_at[4] == pytest.approx(50.0)  # a right, b wrong
    # per-sample accuracy: s0 = a C, b W, c U -> 1/3; s1 = W W C -> 1/3; s2 = W C C -> 2/3; s3 = C W -> 1/2
    assert st.per_sample == pytest.approx([100 / 3, 100 / 3, 200 / 3, 50.0])
    m = (100 / 3 + 100 / 3 + 200 / 3 + 50) / 4
    sd = (sum((x - m) ** 2 for x in [100 / 3, 100 / 3, 200 / 3, 50.0]) / 3) ** 0.5
    assert st.spread == pytest.approx(sd)


def _view(rows: list[ScoredRow], model: str = "openai/m1", samples: int = 1, mode: str = "zero-shot") -> RunView:
    run = {"run_id": model.replace("/", "_"), "benchmark": "toy", "model": model, "mode": mode, "subset": "",
           "spec": {"samples": samples}}
    return RunView(run, rows, [], {})


def test_samples_table_counts_items_and_skips_single_sample_runs() -> None:
    views = [_view(_four_sample_rows(), "openai/m1", 4), _view([_row("x/a", 0, C, "1")], "openai/m2", 1)]
    t = samples_table(views, ["m1", "m2"])
    assert t is not None and [r[0] for r in t.rows] == ["m1"]
    row = dict(zip(t.columns, t.rows[0], strict=True))
    assert row["n"] == 3 and row["samples"] == 4
    assert row["pass@2"] == pytest.approx(100 * (5 / 6 + 0.5 + 1) / 3)
    assert row["maj@4"] == pytest.approx(50.0) and "maj@1" not in row
    assert any("1 item(s) with fewer than 4 answered samples" in n for n in t.notes)
    assert samples_table([views[1]], ["m2"]) is None


def test_price_file_yaml_and_json_and_errors(tmp_path: Path) -> None:
    y = tmp_path / "prices.yaml"
    y.write_text("gpt-4o: {input: 2.5, output: 10}\n'openai/o3': {input: 2, output: 8, reasoning: 4}\n")
    p = load_prices(y)
    assert p["gpt-4o"] == Price(2.5, 10.0, None) and p["openai/o3"].reasoning == 4.0
    j = tmp_path / "prices.json"
    j.write_text(json.dumps({"m": {"input": 1, "output": 2}}))
    assert load_prices(j) == {"m": Price(1.0, 2.0, None)}
    for text, msg in (("m: {input: 1}\n", "entry 'm': missing 'output'"),
                      ("m: {input: -1, output: 2}\n", "entry 'm': 'input' must be a number >= 0, got -1"),
                      ("m: {input: 1, output: two}\n", "'output' must be a number >= 0, got 'two'"),
                      ("m: {input: 1, output: 2, cached: 1}\n", "unknown key(s) cached"),
                      ("m: [1, 2]\n", "entry 'm': expected {input: ..., output: ...}"),
                      ("m: {input: 1\n", "not valid YAML (line"),
                      ("- 1\n", "expected a mapping")):
        y.write_text(text)
        with pytest.raises(PriceError, match=None) as e:
            load_prices(y)
        assert msg in str(e.value) and str(y) in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(PriceError, match="cannot read the price file"):
        load_prices(tmp_path / "missing.yaml")


def test_price_lookup_order() -> None:
    prices = {"nice": Price(1, 1), "openai/gpt-4o": Price(2, 2), "qwen": Price(3, 3)}
    assert price_for(prices, "nice", "openai/gpt-4o") == Price(1, 1)  # display label first
    assert price_for(prices, "x", "openai/gpt-4o@http://h:8000/v1") == Price(2, 2)  # endpoint dropped
    assert price_for(prices, "x", "openai-compat/qwen@http://h/v1") == Price(3, 3)  # provider prefix dropped
    assert price_for(prices, "x", "openai/other") is None


def test_cost_by_hand_with_reasoning_and_unknown_usage() -> None:
    rows = [_row("x/1", 0, C, "1", Usage(1000, 400), reasoning=300), _row("x/2", 0, W, "2", Usage(2000, 100)),
            _row("x/2", 1, C, "3", Usage(1000, 100))]  # 2 items, 3 calls
    price = Price(input=2.0, output=10.0, reasoning=5.0)
    rc = run_cost(_view(rows), price)
    assert (rc.items, rc.calls, rc.input_tokens, rc.output_tokens, rc.reasoning_tokens) == (2, 3, 4000, 600, 300)
    # 4000 x 2 + (600 - 300) x 10 + 300 x 5 = 8000 + 3000 + 1500 = 12,500 per 1M -> 0.0125
    assert rc.cost == pytest.approx(0.0125) and rc.per_1000_items == pytest.approx(6.25)
    # without a reasoning price, reasoning tokens cost the output price: 8000 + 6000 = 0.014
    assert run_cost(_view(rows), Price(2.0, 10.0)).cost == pytest.approx(0.014)
    # a call without usage (the server reported none) makes the cost unknown, never 0
    none_usage = _row("x/3", 0, C, "1")
    none_usage.turns[0].completion.usage = None  # type: ignore[assignment]
    views = [_view([*rows, none_usage]), _view(rows, "openai/unpriced")]
    t = cost_table(views, ["m1", "unpriced"], {"m1": price})
    got = {r[0]: dict(zip(t.columns, r, strict=True)) for r in t.rows}
    assert got["m1"]["cost"] is None and got["m1"]["n"] == 3 and got["m1"]["input tokens"] == 4000
    assert got["unpriced"]["cost"] is None
    assert any("1 of 4 calls have no usage reported" in n for n in t.notes)
    assert any("no price for 'unpriced' or 'openai/unpriced'" in n for n in t.notes)
    ok = cost_table([_view(rows)], ["m1"], {"m1": price})
    assert ok.rows[0][6:] == [0.0125, 6.25]
