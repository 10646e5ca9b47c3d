"""OpenAI-compatible chat/completions over HTTP (aiohttp), across one or more replicas.

Transport, retries, limiter and hedging are shared with the other HTTP backends (:mod:`.http`). Here: the
request body (generation controls, ``reasoning_effort``, ``--extra-body``) and the response: the answer in
``text``, separately returned reasoning (``reasoning_content`` / ``reasoning``, as vLLM, SGLang, DeepSeek and
llama.cpp servers send it) in ``Completion.reasoning``, reasoning tokens from
``usage.completion_tokens_details``, and, when streaming, the time to the first answer token.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import aiohttp

from ..core.response import CLOSE, OPEN
from ..core.safetext import redact_secrets, storable
from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError
from .http import (  # noqa: F401 - re-exported: the names this module had before the split
    RETRYABLE_STATUS,
    HTTPBackend,
    HTTPOptions,
    Replica,
    Retryable,
    _Retryable,
    parse_retry_after,
    sse_events,
    stream_rejected,
)


def _clean(text: str | None) -> str | None:
    return None if text is None else storable(redact_secrets(text))


def _reasoning_tokens(u: dict[str, Any]) -> int | None:
    details = u.get("completion_tokens_details") or u.get("output_tokens_details") or {}
    n = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return int(n) if isinstance(n, (int, float)) else None


class AnswerWatch:
    """Whether streamed content has reached the answer, fed one piece at a time: true from the first piece after
    which ``core.response.answer_started`` is true of everything fed so far (the time to first answer token),
    in time linear in the pieces (re-joining the text on every piece was quadratic on a long inline ``<think>``
    section). It keeps only the last ``len(CLOSE) - 1`` characters of the reasoning, where a closing tag split
    across pieces begins."""

    def __init__(self) -> None:
        self.started = False
        self._state = "lead"  # lead: only whitespace so far; think: inside the opening <think>; after: past </think>
        self._tail = ""

    def feed(self, piece: str) -> bool:
        if self.started or not piece:
            return self.started
        if self._state == "lead":
            piece = piece.lstrip()
            if not piece:
                return False
            if not piece.startswith(OPEN):  # as answer_started: only a whole opening tag starts reasoning
                self.started = True
                return True
            self._state, piece = "think", piece[len(OPEN):]
        if self._state == "think":
            text = self._tail + piece
            j = text.find(CLOSE)
            if j < 0:
                self._tail = text[-(len(CLOSE) - 1):]
                return False
            self._state, self._tail, piece = "after", "", text[j + len(CLOSE):]
        self.started = bool(piece.strip())
        return self.started


class OpenAICompatBackend(HTTPBackend):
    def __init__(self, spec: str, model: str, base_urls: list[str], api_key: str | None,
                 concurrency: int = 32, options: HTTPOptions | None = None) -> None:
        super().__init__(spec, base_urls, api_key, concurrency, options)
        self.model = model
        self._stream = self.opts.stream

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _body(self, prompt: Prompt, params: GenParams) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": params.max_tokens}
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed
        if params.reasoning_effort is not None:
            body["reasoning_effort"] = params.reasoning_effort
        body.update(self.opts.extra_body)
        body.update(params.extra)
        if "max_completion_tokens" in body:  # o-series models take only this one
            body.pop("max_tokens", None)
        if prompt.is_chat:
            body["messages"] = [{"role": m.role, "content": m.content} for m in prompt.messages]
            return "/chat/completions", body
        body["prompt"] = prompt.text
        return "/completions", body

    async def _read(self, resp: aiohttp.ClientResponse, replica: Any, t0: float,
                    body: dict[str, Any]) -> Completion:
        chat = "messages" in body
        if body.get("stream") and resp.content_type == "text/event-stream":
            return await self._read_stream(resp, t0, chat)
        raw = await resp.read()  # also a server that ignored ``stream``
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            reasoning = None
            if chat:
                msg = choice.get("message") or {}
                text = msg.get("content") or ""
                reasoning = msg.get("reasoning_content") or msg.get("reasoning") or None
            else:
                text = choice.get("text") or ""
            if not isinstance(text, str) or not isinstance(reasoning, (str, type(None))):
                raise TypeError("content is not a string")
            u = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            raise ValueError(f"{e.__class__.__name__}: {raw[:120]!r}") from e
        return self._completion(text, reasoning, choice.get("finish_reason"), u, time.monotonic() - t0, None)

    async def _read_stream(self, resp: aiohttp.ClientResponse, t0: float, chat: bool) -> Completion:
        text: list[str] = []
        reasoning: list[str] = []
        finish: Any = None
        usage: dict[str, Any] = {}
        ttft: float | None = None
        started = AnswerWatch()
        async for ev in sse_events(resp):
            if ev.get("usage"):
                usage = ev["usage"]
            for choice in ev.get("choices") or []:
                if chat:
                    delta = choice.get("delta") or {}
                    piece = delta.get("content") or ""
                    think = delta.get("reasoning_content") or delta.get("reasoning") or ""
                else:
                    piece, think = choice.get("text") or "", ""
                if not isinstance(piece, str) or not isinstance(think, str):
                    raise TypeError("content is not a string")
                reasoning.append(think)
                text.append(piece)
                if ttft is None and started.feed(piece):
                    ttft = time.monotonic() - t0
                finish = choice.get("finish_reason") or finish
        return self._completion("".join(text), "".join(reasoning) or None, finish, usage,
                                time.monotonic() - t0, ttft)

    @staticmethod
    def _completion(text: str, reasoning: str | None, finish: Any, u: dict[str, Any], latency: float,
                    ttft: float | None) -> Completion:
        usage = Usage(int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0))
        return Completion(text=_clean(text) or "", finish_reason=storable(finish) if isinstance(finish, str) else None,
                          usage=usage, latency_s=latency, reasoning=_clean(reasoning),
                          reasoning_tokens=_reasoning_tokens(u), ttft_s=ttft)

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        path, body = self._body(prompt, params)
        if self._stream and "stream" not in body:
            comp = await self.request(path, {**body, "stream": True, "stream_options": {"include_usage": True}})
            if not stream_rejected(comp):
                return comp
            self._stream = False  # this server does not stream: ask it plainly from now on
        return await self.request(path, body)


def from_spec(spec: str, concurrency: int, options: HTTPOptions | None = None) -> OpenAICompatBackend:
    kind, _, rest = spec.partition("/")
    if kind == "openai":
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelError(f"{spec}: set OPENAI_API_KEY in the environment")
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        return OpenAICompatBackend(spec, rest, [base], key, concurrency, options)
    name, at, urls = rest.partition("@")
    if not at or not name or not urls:
        raise ModelError(f"{spec!r}: expected openai-compat/<model-name>@http://host:port/v1[,URL2,...]")
    url_list = [u.strip() for u in urls.split(",") if u.strip()]
    for u in url_list:
        if not u.startswith(("http://", "https://")):
            raise ModelError(f"{spec!r}: {u!r} is not an http(s) URL")
    key = os.environ.get("REASONEVAL_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return OpenAICompatBackend(spec, name, url_list, key, concurrency, options)
