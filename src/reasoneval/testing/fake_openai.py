"""A local fake OpenAI-compatible server for tests and benchmarks, with fault injection.

    python -m reasoneval.testing.fake_openai --port 8011 --delay 0.2 [--faults 429,500,timeout,malformed]

It answers ``/v1/chat/completions`` and ``/v1/completions`` after ``--delay`` seconds with a
deterministic text that ends in ``[[<last word of the prompt>]]``. With ``--faults``, each request
*the first time its prompt is seen* gets the listed failures in turn (then succeeds), so every item
eventually completes when the client retries, and a test can count exactly what happened.
``--fail-every K`` applies the faults only to every K-th distinct prompt.
``--capacity K`` serves at most K requests at once (the rest wait their turn), like a real replica
of fixed capacity; 0 (the default) means unlimited.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
from collections import Counter
from typing import Any

from aiohttp import web


def answer_for(text: str) -> str:
    words = text.split()
    last = words[-1].strip("?.!,:") if words else ""
    h = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"Thinking about it ({h}). The answer is [[{last}]]."


def prompt_text(body: dict[str, Any]) -> str:
    if "messages" in body:
        parts = []
        for m in body["messages"]:
            c = m.get("content")
            parts.append(c if isinstance(c, str) else json.dumps(c))
        return "\n".join(parts)
    return str(body.get("prompt", ""))


class FakeServer:
    def __init__(self, delay: float, faults: list[str], fail_every: int, timeout_sleep: float,
                 retry_after: str, capacity: int = 0) -> None:
        self.delay = delay
        self.capacity = capacity
        self._slots: asyncio.Semaphore | None = None
        self._active = 0
        self.faults = faults
        self.fail_every = max(1, fail_every)
        self.timeout_sleep = timeout_sleep
        self.retry_after = retry_after
        self.seen: Counter[str] = Counter()
        self.order: dict[str, int] = {}
        self.stats: Counter[str] = Counter()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.capacity <= 0:
            return await self._handle(request)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.capacity)
        async with self._slots:
            self._active += 1
            self.stats["max_concurrent"] = max(self.stats["max_concurrent"], self._active)
            try:
                return await self._handle(request)
            finally:
                self._active -= 1

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        text = prompt_text(body)
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self.order:
            self.order[key] = len(self.order)
        attempt = self.seen[key]
        self.seen[key] += 1
        self.stats["requests"] += 1
        if self.faults and self.order[key] % self.fail_every == 0 and attempt < len(self.faults):
            fault = self.faults[attempt]
            self.stats[fault] += 1
            if fault == "429":
                return web.json_response({"error": "rate limited"}, status=429,
                                         headers={"Retry-After": self.retry_after})
            if fault == "500":
                return web.json_response({"error": "boom"}, status=500)
            if fault == "timeout":
                await asyncio.sleep(self.timeout_sleep)
                return web.json_response({"error": "too late"}, status=504)
            if fault == "malformed":
                return web.Response(text='{"choices": [ {"mess', content_type="application/json")
            if fault == "empty":
                return web.json_response({"choices": []})
            if fault.isdigit():  # any other HTTP status, e.g. 400 or 401
                return web.json_response({"error": f"status {fault}"}, status=int(fault))
        if self.delay:
            await asyncio.sleep(self.delay)
        self.stats["ok"] += 1
        content = answer_for(text)
        usage = {"prompt_tokens": len(text.split()), "completion_tokens": len(content.split())}
        if request.path.endswith("/chat/completions"):
            choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content},
                                      "finish_reason": "stop"}
        else:
            choice = {"index": 0, "text": content, "finish_reason": "stop"}
        return web.json_response({"id": "fake", "object": "chat.completion", "model": body.get("model"),
                                  "choices": [choice], "usage": usage})

    async def stats_handler(self, request: web.Request) -> web.Response:
        return web.json_response({**self.stats, "distinct_prompts": len(self.order)})

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.handle)
        app.router.add_post("/v1/completions", self.handle)
        app.router.add_get("/stats", self.stats_handler)
        return app


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8011)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--faults", default="")
    ap.add_argument("--fail-every", type=int, default=1)
    ap.add_argument("--timeout-sleep", type=float, default=3.0)
    ap.add_argument("--retry-after", default="1")
    ap.add_argument("--capacity", type=int, default=0, help="requests served at once (0: unlimited)")
    a = ap.parse_args()
    srv = FakeServer(a.delay, [f for f in a.faults.split(",") if f], a.fail_every, a.timeout_sleep,
                     a.retry_after, capacity=a.capacity)
    web.run_app(srv.app(), host=a.host, port=a.port, print=None, access_log=None, backlog=4096)


if __name__ == "__main__":
    main()
