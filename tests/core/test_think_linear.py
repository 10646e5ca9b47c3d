"""The response view: <think> handling is linear-time and agrees with its specification."""

from __future__ import annotations

import random
import re
import time

from reasoneval.core import registry
from reasoneval.core.response import Response, split_think, strip_think
from reasoneval.core.types import Completion, Outcome
from reasoneval.runner.scoring import score_completion

_SPEC_RE = re.compile(r"<think>.*?</think>", re.DOTALL)  # the specification (quadratic on hostile input)


def _spec(text: str) -> str:
    if "<think>" not in text and "</think>" not in text:
        return text
    out = _SPEC_RE.sub("", text)
    if "</think>" in out:
        out = out.rsplit("</think>", 1)[1]
    if "<think>" in out:
        out = out.split("<think>", 1)[0]
    return out.strip()


def test_matches_the_specification_on_generated_inputs() -> None:
    rng = random.Random(11)
    tokens = ["<think>", "</think>", "a", " ", "[[1]]", "<", "think>", "</", "\n"]
    for _ in range(20_000):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 14)))
        assert strip_think(text) == _spec(text), repr(text)
    final, reasoning = split_think("<think>try [[2]]</think> so [[1]]")
    assert (final, reasoning) == ("so [[1]]", "try [[2]]")
    assert Response.of("<think>never closed [[1]]").truncated
    assert Response.of("[[1]]", "length").truncated and not Response.of("[[1]]", "stop").truncated


def _best_time(fn, arg: str, reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - t0)
    return best


def test_time_grows_linearly_on_hostile_inputs() -> None:
    shapes = [lambda n: "<think>" * n + "[[1]]",
              lambda n: "</think>" * n + "[[1]]",
              lambda n: "<think>x</think>" * n + "<think>" * n,
              lambda n: "<think>" * n + "</think>" + "<think>" * n]
    for shape in shapes:
        n = 50_000
        small, big = _best_time(split_think, shape(n)), _best_time(split_think, shape(4 * n))
        # linear: 4x the input costs about 4x (quadratic would be 16x); generous for a busy 2-core box
        assert big < max(10 * small, 0.05), (shape(2)[:40], small, big)


def test_700kb_payload_scores_in_well_under_a_second() -> None:
    payload = "<think>" * 100_000 + "[[1]]"  # 700 KB; the regex version took 214 s
    bench = registry.get("korbench")
    item = bench.load("operation", "zero-shot")[0]
    t0 = time.perf_counter()
    v = score_completion(bench, item, Completion(payload, finish_reason="stop"), "zero-shot")
    assert time.perf_counter() - t0 < 0.5
    assert v.outcome is Outcome.UNANSWERABLE and v.method == "truncated"  # never closed: no answer reached
