"""The rules under the response faults: one validator for both backends and both paths, usage numbers, size
limits, control codes and redaction (issue 23 defects 1, 2, 3, 7, 8, 11; issue 25 point 9)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from reasoneval.core import safetext
from reasoneval.core.safetext import (
    REDACTED,
    redact,
    redact_secrets,
    register_secret,
    server_text,
    strip_controls,
)
from reasoneval.core.tokens import known_total, show_total
from reasoneval.core.values import Completion, GenParams, Prompt
from reasoneval.models.anthropic import AnthropicBackend
from reasoneval.models.http_backend import HTTPOptions
from reasoneval.models.limits import ResponseLimits
from reasoneval.models.openai_compat import OpenAICompatBackend
from reasoneval.models.validate import token_count

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STREAM = [pytest.param(True, id="stream"), pytest.param(False, id="no-stream")]


# ---- usage numbers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "want"), [
    (12, 12), (12.0, 12), (0, 0), (float("inf"), None), (float("nan"), None), (1e300, None), (-3, None),
    (2.5, None), ("12", None), (True, None), (None, None), (2 ** 60, None), ([3], None), ({"n": 3}, None)])
def test_token_count_keeps_only_whole_counts(value: Any, want: int | None) -> None:
    assert token_count(value) == want


def test_totals_over_unknown_counts_say_how_many_were_unknown() -> None:
    assert known_total([3, None, 4, None]) == (7, 2)
    assert known_total([None, None]) == (None, 2)
    assert known_total([]) == (None, 0)
    assert show_total(7, 2, 4) == "7 (2 of 4 unknown)" and show_total(7, 0, 4) == "7"
    assert show_total(None, 2, 2) == "-"


# ---- control codes -------------------------------------------------------------------------------------------


def test_strip_controls_removes_escape_sequences_whole() -> None:
    hostile = "bad \x1b]0;PWNED\x07\x1b[2J\x1b[31mrequest\x1b[0m \x9b2J\x9d0;T\x9c\u202eevil\r\nnext\x00\x08\x7f"
    out = strip_controls(hostile)
    assert out == "bad request evil next"
    assert strip_controls("a\nb\tc", keep_newlines=True) == "a\nb\tc"
    assert strip_controls("é 中文 [[1]] \\x1b") == "é 中文 [[1]] \\x1b"  # text, and an escape written out, stay


def test_server_text_strips_then_redacts_then_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safetext, "_SECRETS", set())
    monkeypatch.setattr(safetext, "_PIECES", set())
    key = "rk_live_" + "Qx7pLm2Vw9" * 3
    register_secret(key)
    body = "x" * 280 + key + " trailing"
    out = server_text(body, 300)
    assert REDACTED in out and not any(key[i:i + 8] in out for i in range(len(key) - 7))
    # cut first (the old order), 20 characters of the key are left: the whole-key rule misses them, the
    # 8-character pieces do not
    assert key not in body[:300] and key[:20] in body[:300]
    assert key[:20] not in redact(body[:300]) and REDACTED in redact(body[:300])
    # a control code inside the key does not hide it
    assert key[:10] not in server_text("k=" + key[:10] + "\x1b[0m" + key[10:], 300)
    assert len(server_text("é" * 1000, 50)) == 51  # 50 characters and an ellipsis


def test_any_8_character_piece_of_a_secret_is_redacted_in_errors_not_in_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safetext, "_SECRETS", set())
    monkeypatch.setattr(safetext, "_PIECES", set())
    key = "zz-" + "AbCdEfGh12" * 3
    register_secret(key)
    cut = key[5:17]  # 12 characters from the middle of the key
    assert redact(f"HTTP 401: key {cut}...") == f"HTTP 401: key {REDACTED}..."
    assert redact("nothing secret here") == "nothing secret here"
    assert redact(f"{key[:7]} is too short a piece") == f"{key[:7]} is too short a piece"
    # model output loses only a whole key: a piece can be an ordinary word of an answer
    assert redact_secrets(f"[[{cut}]] and {key}") == f"[[{cut}]] and {REDACTED}"


def test_keys_in_the_environment_are_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safetext, "_SECRETS", set())
    monkeypatch.setattr(safetext, "_PIECES", set())
    monkeypatch.setattr(safetext, "_ENV_READ", False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "envkey-" + "Pq4" * 8)
    assert redact("got " + ("Pq4" * 8)[:9]) == "got " + REDACTED


# ---- one validator, both backends, both paths ------------------------------------------------------------


def _sse(*events: Any) -> bytes:
    return b"".join(b"data: " + (e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n\n" for e in events)


async def _serve(handler: Handler, call: Callable[[str], Awaitable[Completion]]) -> Completion:
    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    app.router.add_post("/v1/messages", handler)
    server = TestServer(app)
    await server.start_server()
    try:
        return await call(str(server.make_url("")).rstrip("/"))
    finally:
        await server.close()


def _opts(stream: bool, limits: ResponseLimits | None = None) -> HTTPOptions:
    return HTTPOptions(timeout_s=10, max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02, stream=stream,
                       limits=limits or ResponseLimits())


def _anthropic(reply: Callable[[bool], tuple[str, bytes]], stream: bool,
               limits: ResponseLimits | None = None) -> Completion:
    async def handler(request: web.Request) -> web.Response:
        body = await request.json()
        ctype, payload = reply(bool(body.get("stream")))
        return web.Response(body=payload, content_type=ctype)

    async def call(url: str) -> Completion:
        b = AnthropicBackend("anthropic/m", "m", url, "test-key-0123456789", 4, _opts(stream, limits))
        try:
            return await b.generate(Prompt.chat("say [[x]]"), GenParams(max_tokens=16))
        finally:
            await b.aclose()

    return asyncio.run(_serve(handler, call))


MESSAGE = {"id": "m", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "[[x]]"}],
           "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 3}}


def _anthropic_events(stop: bool = True, usage: Any = None) -> bytes:
    events: list[Any] = [{"type": "message_start", "message": {**MESSAGE, "content": [], "stop_reason": None,
                                                               "usage": usage or {"input_tokens": 5}}},
                         {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "[[x]]"}}]
    if stop:
        events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
                   {"type": "message_stop"}]
    return _sse(*events)


@pytest.mark.parametrize("stream", STREAM)
def test_anthropic_answer_passes(stream: bool) -> None:
    c = _anthropic(lambda s: ("text/event-stream", _anthropic_events()) if s else
                   ("application/json", json.dumps(MESSAGE).encode()), stream)
    assert c.error is None and c.text == "[[x]]" and c.finish_reason == "stop"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (5, 3)


@pytest.mark.parametrize("stream", STREAM)
def test_anthropic_openai_shaped_response_has_no_choices(stream: bool) -> None:
    openai = {"choices": [{"index": 0, "message": {"content": "[[x]]"}, "finish_reason": "stop"}]}
    c = _anthropic(lambda s: ("text/event-stream", _sse(openai, b"[DONE]")) if s else
                   ("application/json", json.dumps(openai).encode()), stream)
    assert c.error is not None and "malformed response" in c.error and "no choices" in c.error


def test_anthropic_stream_without_stop_is_incomplete() -> None:
    c = _anthropic(lambda s: ("text/event-stream", _anthropic_events(stop=False)), True)
    assert c.error is not None and "incomplete response" in c.error


@pytest.mark.parametrize("stream", STREAM)
def test_anthropic_error_sent_with_200_is_an_error(stream: bool) -> None:
    err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded \x1b[2J"}}
    c = _anthropic(lambda s: ("text/event-stream", _sse(err)) if s else
                   ("application/json", json.dumps(err).encode()), stream)
    assert c.error is not None and "error in a 200 response: Overloaded" in c.error and "\x1b" not in c.error


@pytest.mark.parametrize("stream", STREAM)
def test_anthropic_malformed_usage_is_unknown(stream: bool) -> None:
    bad = b'{"input_tokens": 1e999, "output_tokens": "3"}'
    plain = json.dumps({**MESSAGE, "usage": 0}).encode().replace(b'"usage": 0', b'"usage": ' + bad)
    events = _anthropic_events().replace(b'{"input_tokens": 5}', bad)
    c = _anthropic(lambda s: ("text/event-stream", events) if s else ("application/json", plain), stream)
    assert c.error is None and c.text == "[[x]]"
    assert c.usage.prompt_tokens is None  # 1e999
    assert c.usage.completion_tokens == (3 if stream else None)  # "3"; streamed, message_delta says 3


def test_anthropic_answer_over_the_character_limit_is_oversized() -> None:
    c = _anthropic(lambda s: ("application/json", json.dumps({**MESSAGE, "content": [
        {"type": "text", "text": "y" * 5000}]}).encode()), False, ResponseLimits(max_chars=1000))
    assert c.error is not None and "oversized response" in c.error and "1,000 characters" in c.error


# ---- limits before and while reading ---------------------------------------------------------------------


def _openai(handler: Handler, stream: bool, limits: ResponseLimits) -> Completion:
    async def call(url: str) -> Completion:
        b = OpenAICompatBackend("openai-compat/m", "m", [url + "/v1"], None, 4, _opts(stream, limits))
        try:
            return await b.generate(Prompt.chat("say [[x]]"), GenParams(max_tokens=16))
        finally:
            await b.aclose()

    return asyncio.run(_serve(handler, call))


@pytest.mark.parametrize("stream", STREAM)
def test_a_declared_length_over_the_limit_is_refused_before_reading(stream: bool) -> None:
    big = b'{"choices": [{"message": {"content": "' + b"z" * (2 << 20) + b'"}, "finish_reason": "stop"}]}'

    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=big, content_type="text/event-stream" if stream else "application/json")

    c = _openai(handler, stream, ResponseLimits(max_bytes=1 << 20))
    assert c.error is not None and "oversized response" in c.error and f"Content-Length {len(big)}" in c.error


def test_one_endless_line_of_an_event_stream_stops_at_the_decoded_limit() -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b'data: {"choices": [{"delta": {"content": "')
        try:
            while True:
                await resp.write(b"w" * 65536)  # never a newline
        except (ConnectionError, RuntimeError):
            return resp

    c = _openai(handler, True, ResponseLimits(max_decoded_bytes=2 << 20))
    assert c.error is not None and "oversized response" in c.error and "once decompressed" in c.error


@pytest.mark.parametrize("stream", STREAM)
def test_openai_error_object_sent_with_200_is_an_error(stream: bool) -> None:
    err = {"error": {"message": "model overloaded", "type": "server_error"}}

    async def handler(request: web.Request) -> web.Response:
        if stream:
            return web.Response(body=_sse(err, b"[DONE]"), content_type="text/event-stream")
        return web.json_response(err)

    c = _openai(handler, stream, ResponseLimits())
    assert c.error is not None and "error in a 200 response: model overloaded" in c.error


@pytest.mark.parametrize("stream", STREAM)
def test_openai_content_that_is_not_a_string_is_malformed(stream: bool) -> None:
    async def handler(request: web.Request) -> web.Response:
        if stream:
            return web.Response(body=_sse({"choices": [{"delta": {"content": ["x"]}, "finish_reason": "stop"}]},
                                          b"[DONE]"), content_type="text/event-stream")
        return web.json_response({"choices": [{"message": {"content": {"x": 1}}, "finish_reason": "stop"}]})

    c = _openai(handler, stream, ResponseLimits())
    assert c.error is not None and "malformed response" in c.error and "not a string" in c.error


def test_a_stream_with_a_finish_reason_but_no_done_marker_is_complete() -> None:
    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=_sse({"choices": [{"delta": {"content": "[[x]]"}, "finish_reason": "stop"}]}),
                            content_type="text/event-stream")

    c = _openai(handler, True, ResponseLimits())
    assert c.error is None and c.text == "[[x]]" and c.finish_reason == "stop"
    assert c.usage.prompt_tokens is None  # reported no usage: unknown, not 0
