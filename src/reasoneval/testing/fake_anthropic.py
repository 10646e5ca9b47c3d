"""A local fake of Anthropic's Messages API (``POST /v1/messages``) for tests: no network, no key needed.

    python -m reasoneval.testing.fake_anthropic --port 8012 [--stream] [--think-delay S] [--faults 529,...]

It answers with the same deterministic text as :mod:`.fake_openai` (ending in ``[[<last word>]]``); when the
request enables extended thinking (``thinking: {type: enabled, budget_tokens}``) a ``thinking`` block comes
first. ``--stream`` honours ``"stream": true`` with Anthropic's server-sent events (``message_start``,
``content_block_*`` with ``thinking_delta`` / ``text_delta``, ``message_delta`` with the stop reason and
usage); ``--think-delay`` seconds pass between thinking and answer. A request without ``x-api-key`` or
``anthropic-version`` gets 401 / 400. ``--faults`` gives the first attempt of each prompt those statuses in
turn (529 overloaded, 429 with ``Retry-After: 0``). ``GET /requests`` returns the last 100 request bodies
with the ``x-api-key`` header redacted to its length.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from typing import Any

from aiohttp import web

from .fake_openai import answer_for


def _prompt_text(body: dict[str, Any]) -> str:
    parts = [str(body.get("system", ""))] if body.get("system") else []
    for m in body.get("messages", []):
        c = m.get("content")
        parts.append(c if isinstance(c, str) else " ".join(str(b.get("text", "")) for b in c))
    return "\n".join(parts)


class FakeAnthropic:
    def __init__(self, stream: bool = False, think_delay: float = 0.0, faults: list[str] | None = None) -> None:
        self.stream = stream
        self.think_delay = think_delay
        self.faults = faults or []
        self.seen: Counter[str] = Counter()
        self.requests: list[dict[str, Any]] = []

    async def messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        key = request.headers.get("x-api-key", "")
        self.requests = [*self.requests[-99:], {**body, "_key_len": len(key),
                                                 "_version": request.headers.get("anthropic-version")}]
        if not key:
            return web.json_response({"type": "error", "error": {"type": "authentication_error"}}, status=401)
        if not request.headers.get("anthropic-version"):
            return web.json_response({"type": "error", "error": {"type": "invalid_request_error",
                                                                 "message": "anthropic-version missing"}}, status=400)
        text = _prompt_text(body)
        attempt = self.seen[text]
        self.seen[text] += 1
        if attempt < len(self.faults):
            status = int(self.faults[attempt])
            return web.json_response({"type": "error", "error": {"type": "overloaded_error"}}, status=status,
                                     headers={"Retry-After": "0"})
        answer = answer_for(text)
        thinking = ""
        if (body.get("thinking") or {}).get("type") == "enabled":
            thinking = f"I should look at the last word of {len(text.split())} words."
        usage = {"input_tokens": len(text.split()), "output_tokens": len(answer.split()) + len(thinking.split())}
        if body.get("stream") and self.stream:
            return await self._stream(request, body, thinking, answer, usage)
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
        content.append({"type": "text", "text": answer})
        return web.json_response({"id": "msg_fake", "type": "message", "role": "assistant",
                                  "model": body.get("model"), "content": content, "stop_reason": "end_turn",
                                  "usage": usage})

    async def _stream(self, request: web.Request, body: dict[str, Any], thinking: str, answer: str,
                      usage: dict[str, Any]) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)

        async def send(kind: str, data: dict[str, Any]) -> None:
            await resp.write(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode())

        await send("message_start", {"message": {"id": "msg_fake", "type": "message", "role": "assistant",
                                                 "content": [], "model": body.get("model"),
                                                 "usage": {"input_tokens": usage["input_tokens"],
                                                           "output_tokens": 1}}})
        index = 0
        if thinking:
            await send("content_block_start", {"index": 0, "content_block": {"type": "thinking", "thinking": ""}})
            for word in thinking.split(" "):
                await send("content_block_delta", {"index": 0, "delta": {"type": "thinking_delta",
                                                                        "thinking": word + " "}})
            await send("content_block_stop", {"index": 0})
            index = 1
        if self.think_delay:
            await asyncio.sleep(self.think_delay)
        await send("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
        words = answer.split(" ")
        for i, word in enumerate(words):
            await send("content_block_delta", {"index": index, "delta": {
                "type": "text_delta", "text": word + ("" if i == len(words) - 1 else " ")}})
        await send("content_block_stop", {"index": index})
        await send("message_delta", {"delta": {"stop_reason": "end_turn"},
                                     "usage": {"output_tokens": usage["output_tokens"]}})
        await send("message_stop", {})
        await resp.write_eof()
        return resp

    async def requests_handler(self, request: web.Request) -> web.Response:
        return web.json_response(self.requests)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/messages", self.messages)
        app.router.add_get("/requests", self.requests_handler)
        return app


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8012)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--think-delay", type=float, default=0.0)
    ap.add_argument("--faults", default="")
    a = ap.parse_args()
    srv = FakeAnthropic(a.stream, a.think_delay, [f for f in a.faults.split(",") if f])
    web.run_app(srv.app(), host=a.host, port=a.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
