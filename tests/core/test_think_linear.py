"""The response view: <think> handling is linear-time and agrees with its specification."""

from __future__ import annotations

import random
import re
import time

from reasoneval.core import registry
from reasoneval.core.response import Response, split_think, strip_think
from reasoneval.core.values import Completion, Outcome
from reasoneval.runner.verdict_of import score_completion

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
    bench = registry.create("korbench")
    item = bench.load("operation", "zero-shot")[0]
    t0 = time.perf_counter()
    v = score_completion(bench, item, Completion(payload, finish_reason="stop"), "zero-shot")
    assert time.perf_counter() - t0 < 0.5
    # official reads the raw text as the reference does (its [[1]] is not the gold [[24]]), flagged as cut off
    assert v.outcome is Outcome.INCORRECT and v.extracted == "[[1]]" and v.detail["cut_off"] is True
    bench.configure({"scoring": "corrected"})
    t0 = time.perf_counter()
    v = score_completion(bench, item, Completion(payload, finish_reason="stop"), "zero-shot")
    assert time.perf_counter() - t0 < 0.5
    assert v.outcome is Outcome.UNANSWERABLE and v.method == "truncated"  # never closed: no answer reached


# ---- the stream reader: whether the answer started is decided incrementally, never by re-joining the text ------


def _watch_agrees(pieces: list[str]) -> None:
    from reasoneval.core.response import AnswerWatch, answer_started

    # the reference: what the reader did before, answer_started on the whole text after each piece, latched at
    # the first true (it is not monotonic: "<thi" has started, "<think>" has not; the first answer stays first)
    w, so_far, started = AnswerWatch(), "", False
    for p in pieces:
        so_far += p
        started = started or answer_started(so_far)
        assert w.feed(p) == started, (pieces, p)


def test_answer_watch_matches_answer_started_on_every_prefix() -> None:
    rng = random.Random(7)
    tokens = ["<think>", "</think>", "<", "/", "think", ">", "</th", "ink>", "<thi", "nk>", "a", "[[1]]", " ", "\n",
              "\t", ""]
    for _ in range(20_000):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 12)))
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(0, 6))))
        _watch_agrees([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)])
        _watch_agrees(list(text))  # one character per piece: every tag split at every place


def _sse(pieces: list[str]) -> bytes:
    import json

    events = [{"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    events[-1]["choices"][0]["finish_reason"] = "stop"
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


class _FakeStream:
    """What ``_read_stream`` reads of an aiohttp response: ``content.iter_any()``, in 64 KiB network chunks."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.content = self

    async def iter_any(self):
        for i in range(0, len(self.raw), 65536):
            yield self.raw[i:i + 65536]


def _read(raw: bytes):
    import asyncio

    from reasoneval.models.openai_compat import OpenAICompatBackend

    backend = OpenAICompatBackend("openai-compat/m@http://127.0.0.1:9/v1", "m", ["http://127.0.0.1:9/v1"], None)
    t0 = time.perf_counter()
    comp = asyncio.run(backend._read_stream(_FakeStream(raw), time.monotonic(), True))  # type: ignore[arg-type]
    return comp, time.perf_counter() - t0


def _think_stream(n: int) -> list[str]:
    return ["<think>", *(["step "] * n), "</think>", " The answer", " is [[1]]."]


def test_answer_watch_is_linear_in_the_pieces() -> None:
    """Fed directly, 4x the pieces of an inline <think> costs about 4x (the re-join was quadratic: 16x)."""
    from reasoneval.core.response import AnswerWatch

    def feed_all(pieces: list[str]) -> float:
        t0 = time.perf_counter()
        w = AnswerWatch()
        for p in pieces:
            w.feed(p)
        assert w.started
        return time.perf_counter() - t0

    n = 20_000
    small = min(feed_all(_think_stream(n)) for _ in range(3))
    big = min(feed_all(_think_stream(4 * n)) for _ in range(3))
    assert big < max(8 * small, 0.05), (small, big)


def test_stream_reader_is_linear_in_a_long_inline_think() -> None:
    """The whole stream reader (SSE parsing, JSON, the answer watch) on n pieces of an inline <think> then the
    answer, in 64 KiB network chunks. Budgets: 20,000 pieces (1.8 MB of events) < 2 s, 80,000 (7.1 MB) < 6 s
    (measured 0.33 s and 1.34 s; re-joining the text on every piece took 3.4 s and 28 s)."""
    n = 20_000
    small = min(_read(_sse(_think_stream(n)))[1] for _ in range(2))
    comp, big = _read(_sse(_think_stream(4 * n)))
    assert comp.text == "<think>" + "step " * 4 * n + "</think> The answer is [[1]]." and comp.finish_reason == "stop"
    assert comp.ttft_s is not None
    assert small < 2.0 and big < 6.0, (small, big)
    assert big < 8 * small, (small, big)


def test_ttft_is_the_first_answer_piece_after_a_streamed_think(make_server, tmp_path) -> None:
    """Through the fake server (20,000 streamed reasoning words inline, then the answer in the last 4 pieces):
    the time to the first answer token is measured after the reasoning, and the whole reply arrives intact."""
    import asyncio
    import json

    from reasoneval.core.values import GenParams, Prompt
    from reasoneval.models.openai_compat import HTTPOptions, OpenAICompatBackend

    answer = "<think> " + "step " * 20_000 + "</think> The answer is [[1]]."
    (tmp_path / "a.jsonl").write_text(json.dumps({"contains": "long think", "response": answer}) + "\n")
    srv = make_server("--stream", "--answers", str(tmp_path / "a.jsonl"))
    backend = OpenAICompatBackend(f"openai-compat/m@{srv.url}", "m", [srv.url], None, 4,
                                  HTTPOptions(stream=True, timeout_s=60))

    async def go():
        try:
            return await backend.generate(Prompt.chat("a long think please"), GenParams(max_tokens=64))
        finally:
            await backend.aclose()

    t0 = time.perf_counter()
    comp = asyncio.run(go())
    wall = time.perf_counter() - t0
    assert srv.stats()["streamed"] == 1
    assert comp.error is None and comp.text == answer and comp.finish_reason == "stop"
    # the answer is the last 4 of 20,004 pieces: its first token comes after most of the stream, not at "<think>"
    assert comp.ttft_s is not None and 0.5 * comp.latency_s <= comp.ttft_s <= comp.latency_s, comp
    assert wall < 20, wall  # budget for 20,000 streamed events end to end (measured: see the report)
