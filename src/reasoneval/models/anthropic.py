"""Anthropic's Messages API (``anthropic/<model>``) over the shared HTTP machinery (:mod:`.http`).

The key comes only from ``ANTHROPIC_API_KEY`` (never stored); ``ANTHROPIC_BASE_URL`` points elsewhere (a
proxy, the tests' fake). Extended thinking maps onto the same fields as every backend: ``thinking`` blocks
become ``Completion.reasoning``, ``text`` blocks the answer; ``--reasoning-effort`` asks for a thinking budget
(a share of ``max_tokens``, at least the API's 1,024) unless ``--extra-body`` sets ``thinking`` itself.
The API does not report thinking tokens apart from output tokens, so ``reasoning_tokens`` stays unknown.
Streamed and plain messages are judged by the rule every HTTP backend shares (:mod:`.validate`).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from ..core.safetext import redact_secrets, storable
from ..core.values import Completion, GenParams, Prompt
from .base import ModelError
from .http_backend import HTTPBackend, HTTPOptions, stream_rejected
from .limits import SSEReader, read_body
from .validate import Reading, ResponseRejected, usage_of
from .wire import Response

API_VERSION = "2023-06-01"
MIN_BUDGET = 1024
EFFORT_SHARE = {"minimal": 0.0, "low": 0.25, "medium": 0.5, "high": 0.8}
STOP = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "refusal": "refusal",
        "tool_use": "tool_use", "pause_turn": "pause_turn"}


def thinking_budget(effort: str, max_tokens: int) -> int:
    """The thinking budget for a reasoning effort: a share of ``max_tokens``, at least 1,024."""
    if effort not in EFFORT_SHARE:
        raise ModelError(f"--reasoning-effort {effort!r}: Anthropic takes {', '.join(EFFORT_SHARE)}")
    budget = max(MIN_BUDGET, int(EFFORT_SHARE[effort] * max_tokens))
    if budget >= max_tokens:
        raise ModelError(f"--reasoning-effort {effort}: a thinking budget of {budget} tokens needs --max-tokens "
                         f"above it (now {max_tokens})")
    return budget


def _part(p: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI content part as an Anthropic content block."""
    if p.get("type") == "image_url":
        url = str((p.get("image_url") or {}).get("url", ""))
        if url.startswith("data:"):
            head, _, data = url.partition(",")
            media = head[5:].split(";")[0] or "image/png"
            return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
        return {"type": "image", "source": {"type": "url", "url": url}}
    return {"type": "text", "text": str(p.get("text", ""))}


def _clean(text: str) -> str:
    return storable(redact_secrets(text))


class AnthropicBackend(HTTPBackend):
    def __init__(self, spec: str, model: str, base_url: str, api_key: str, concurrency: int = 32,
                 options: HTTPOptions | None = None) -> None:
        super().__init__(spec, [base_url], api_key, concurrency, options)
        self.model = model
        self._stream = self.opts.stream

    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "x-api-key": self.api_key or "",
                "anthropic-version": API_VERSION}

    def body(self, prompt: Prompt, params: GenParams) -> dict[str, Any]:
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        if not prompt.is_chat:
            messages.append({"role": "user", "content": prompt.text or ""})
        for m in prompt.messages:
            content = m.content if isinstance(m.content, str) else [_part(p) for p in m.content]
            if m.role == "system":
                system.append(content if isinstance(content, str) else
                              "\n".join(str(b.get("text", "")) for b in content))
            else:
                messages.append({"role": m.role, "content": content})
        body: dict[str, Any] = {"model": self.model, "max_tokens": params.max_tokens, "messages": messages}
        if system:
            body["system"] = "\n\n".join(system)
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.stop:
            body["stop_sequences"] = list(params.stop)
        extra = {**self.opts.extra_body, **params.extra}
        if params.reasoning_effort is not None and "thinking" not in extra:
            body["thinking"] = {"type": "enabled",
                                "budget_tokens": thinking_budget(params.reasoning_effort, params.max_tokens)}
        body.update(extra)
        return body

    async def _read(self, resp: Response, replica: Any, t0: float,
                    body: dict[str, Any]) -> Completion:
        if body.get("stream") and resp.content_type == "text/event-stream":
            return await self._read_stream(resp, t0)
        raw = await read_body(resp, self.opts.limits)
        r = Reading(self.opts.limits.max_chars, ended=True)
        try:
            data = json.loads(raw)
        except ValueError as e:
            raise ResponseRejected("malformed", f"not JSON ({e.__class__.__name__}): {raw[:120]!r}") from e
        if not isinstance(data, dict):
            raise ResponseRejected("malformed", f"not a JSON object: {raw[:120]!r}")
        if data.get("type") == "error" or data.get("error"):
            r.set_error(data.get("error") or "error")
        content = data.get("content")
        if isinstance(content, list):
            r.containers = 1
            for block in content:
                self._block(r, block)
        r.set_finish(data.get("stop_reason"))
        u = data.get("usage")
        r.usage = u if isinstance(u, dict) else {}
        r.accept()
        return self._completion(r, time.monotonic() - t0, None)

    @staticmethod
    def _block(r: Reading, block: Any) -> None:
        if not isinstance(block, dict):
            raise ResponseRejected("malformed", "a content block is not a JSON object")
        if block.get("type") == "text":
            r.add(block.get("text"))
        elif block.get("type") == "thinking":
            r.add(block.get("thinking"), reasoning=True)

    async def _read_stream(self, resp: Response, t0: float) -> Completion:
        r = Reading(self.opts.limits.max_chars, streamed=True)
        usage: dict[str, Any] = {}
        ttft: float | None = None
        async for ev in SSEReader(resp, self.opts.limits):
            kind = ev.get("type")
            if kind == "error":
                r.set_error(ev.get("error") or "error")
            elif kind == "message_start":
                r.containers += 1
                msg = ev.get("message")
                if isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
                    usage.update(msg["usage"])
            elif kind == "content_block_delta":
                delta = ev.get("delta")
                if not isinstance(delta, dict):
                    raise ResponseRejected("malformed", "a delta is not a JSON object")
                if delta.get("type") == "text_delta":
                    piece = r.add(delta.get("text"))
                    if ttft is None and piece.strip():
                        ttft = time.monotonic() - t0
                elif delta.get("type") == "thinking_delta":
                    r.add(delta.get("thinking"), reasoning=True)
            elif kind == "message_delta":
                delta = ev.get("delta")
                r.set_finish(delta.get("stop_reason") if isinstance(delta, dict) else None)
                if isinstance(ev.get("usage"), dict):
                    usage.update(ev["usage"])
            elif kind == "message_stop":
                r.ended = True
        r.usage = usage
        r.accept()
        return self._completion(r, time.monotonic() - t0, ttft)

    @staticmethod
    def _completion(r: Reading, latency: float, ttft: float | None) -> Completion:
        """An accepted reading as a Completion; malformed usage numbers are unknown (None), not 0."""
        stop = r.finish
        finish = STOP.get(stop, storable(stop)) if stop is not None else None
        return Completion(text=_clean(r.answer), finish_reason=finish,
                          usage=usage_of(r.usage, "input_tokens", "output_tokens"), latency_s=latency,
                          reasoning=_clean(r.thought) if r.thought else None, ttft_s=ttft)

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        try:
            body = self.body(prompt, params)
        except ModelError as e:
            return Completion(error=str(e))
        if self._stream and "stream" not in body:
            comp = await self.request("/v1/messages", {**body, "stream": True})
            if not stream_rejected(comp):
                return comp
            self._stream = False
        return await self.request("/v1/messages", body)


def from_spec(spec: str, concurrency: int, options: HTTPOptions | None = None) -> AnthropicBackend:
    _, _, model = spec.partition("/")
    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise ModelError(f"{spec}: set ANTHROPIC_API_KEY in the environment")
    base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com").rstrip("/")
    if base.endswith("/v1"):
        base = base[:-3]
    if not base.startswith(("http://", "https://")):
        raise ModelError(f"ANTHROPIC_BASE_URL {base!r} is not an http(s) URL")
    return AnthropicBackend(spec, model, base, key, concurrency, options)
