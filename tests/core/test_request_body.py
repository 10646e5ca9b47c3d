"""The request body is encoded once per request (``RequestBody``; a prompt's messages once per prompt) and sent
as the JSON the body dict says, with ``Content-Type: application/json``, for plain and streamed requests; a
prompt whose messages were encoded before gets its own parameters, never another request's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer

from reasoneval.core.values import GenParams, Prompt
from reasoneval.models.http_backend import HTTPOptions
from reasoneval.models.openai_compat import OpenAICompatBackend


def _run(stream: bool) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append((request.content_type, json.loads(await request.read())))
        return web.json_response({"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                               "finish_reason": "stop"}]})

    async def go() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", handler)
        server = TestServer(app)
        await server.start_server()
        b = OpenAICompatBackend("openai-compat/m", "m", [str(server.make_url("/v1"))], None, 4,
                                HTTPOptions(timeout_s=10, max_retries=0, stream=stream))
        try:
            p = Prompt.chat("what is 1 + 1? \u00e9\u4e2d \"quoted\"\n")
            for seed in (1, 2):  # the second request reuses the prompt's encoded messages
                comp = await b.generate(p, GenParams(max_tokens=16, seed=seed, temperature=0.5))
                assert comp.error is None and comp.text == "ok"
            comp = await b.generate(Prompt.chat("another"), GenParams(max_tokens=8))
            assert comp.error is None
        finally:
            await b.aclose()
            await server.close()

    asyncio.run(go())
    return seen


def test_bodies_are_the_json_of_their_dict_with_the_json_content_type() -> None:
    for stream in (False, True):
        seen = _run(stream)
        assert [c for c, _ in seen] == ["application/json"] * 3
        (_, a), (_, b), (_, c) = seen
        msgs = [{"role": "user", "content": "what is 1 + 1? \u00e9\u4e2d \"quoted\"\n"}]
        assert a["messages"] == b["messages"] == msgs
        assert (a["seed"], b["seed"], a["temperature"], a["max_tokens"], a["model"]) == (1, 2, 0.5, 16, "m")
        assert c["messages"] == [{"role": "user", "content": "another"}] and c["max_tokens"] == 8
        assert "seed" not in c
        assert all(bool(x.get("stream")) == stream for _, x in seen)
        if stream:
            assert a["stream_options"] == {"include_usage": True}
