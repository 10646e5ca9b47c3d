"""OpenAI-compatible chat/completions over HTTP (:mod:`.wire`), across one or more replicas.

Transport, retries, limiter and hedging are shared with the other HTTP backends (:mod:`.http`). Here: the
request body (generation controls, ``reasoning_effort``, ``--extra-body``) and the response: the answer in
``text``, separately returned reasoning (``reasoning_content`` / ``reasoning``, as vLLM, SGLang, DeepSeek and
llama.cpp servers send it) in ``Completion.reasoning``, reasoning tokens from
``usage.completion_tokens_details``, and, when streaming, the time to the first answer token. Streamed and
plain responses are read into one :class:`~.validate.Reading` and judged by one rule (:mod:`.validate`),
within the size limits of :mod:`.limits`.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

from ..core.response import AnswerWatch
from ..core.safetext import redact_secrets, storable
from ..core.values import Completion, GenParams, Prompt
from .base import ModelError
from .choices import FILTERED, Extras, check_extra_body, choice_index, first_choice
from .http_backend import (  # noqa: F401 - re-exported: the names this module had before the split
    RETRYABLE_STATUS,
    HTTPBackend,
    HTTPOptions,
    Replica,
    RequestBody,
    Retryable,
    _Retryable,
    parse_retry_after,
    sse_events,
    stream_rejected,
)
from .limits import SSEReader, read_body
from .validate import Reading, ResponseRejected, token_count, usage_of
from .wire import Response

MESSAGES_KEPT = 4096  # prompts whose encoded messages are kept (``OpenAICompatBackend._encoded``)


def _clean(text: str | None) -> str | None:
    return None if text is None else storable(redact_secrets(text))


def _check_chars(reading: Reading, extras: Extras) -> None:
    """Refusal and tool-call text count towards the character limit like the answer's."""
    if reading.chars + extras.chars > reading.max_chars:
        raise ResponseRejected("oversized", f"over {reading.max_chars:,} characters of answer and reasoning "
                                            "(--max-response-chars)")


def _reasoning_tokens(usage: dict[str, Any]) -> int | None:
    details = usage.get("completion_tokens_details") or usage.get("output_tokens_details") or {}
    return token_count(details.get("reasoning_tokens")) if isinstance(details, dict) else None


class OpenAICompatBackend(HTTPBackend):
    def __init__(self, spec: str, model: str, base_urls: list[str], api_key: str | None,
                 concurrency: int = 32, options: HTTPOptions | None = None) -> None:
        super().__init__(spec, base_urls, api_key, concurrency, options)
        self.model = model
        self._stream = self.opts.stream
        #: the model id the server says it serves (``identify``; None until asked, or unknown)
        self.served_id: str | None = None
        #: a prompt's messages and their JSON (``_encoded``, ``_chat_request``; read-only once made)
        self._messages_json: dict[Prompt, tuple[list[dict[str, Any]], str]] = {}
        self._last_heads: _Heads | None = None  # the body without the prompt for the last parameters

    async def identify(self) -> None:
        """Ask the replicas which model they serve (:mod:`.served`), once, before the run's first request."""
        from .served import served_ids

        headers = {name: value for name, value in self._headers().items() if name != "Content-Type"}
        self.served_id = await served_ids(self.model, [replica.url for replica in self.replicas], headers,
                                          min(10.0, self.opts.timeout_s))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _body(self, prompt: Prompt, params: GenParams) -> tuple[str, dict[str, Any]]:
        body = self._params_body(params)
        if prompt.is_chat:
            body["messages"] = [{"role": msg.role, "content": msg.content} for msg in prompt.messages]
            return "/chat/completions", body
        body["prompt"] = prompt.text
        return "/completions", body

    def _params_body(self, params: GenParams) -> dict[str, Any]:
        """The request body without the prompt: the model, the generation controls, ``--extra-body``."""
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
        try:
            check_extra_body(body)  # one answer per request (models/choices.py)
        except ValueError as e:
            raise ModelError(f"{self.spec}: {e}") from None
        if "max_completion_tokens" in body:  # o-series models take only this one
            body.pop("max_tokens", None)
        return body

    async def _read(self, resp: Response, replica: Any, t0: float,
                    body: dict[str, Any]) -> Completion:
        chat = "messages" in body
        limits = self.opts.limits
        if body.get("stream") and resp.content_type == "text/event-stream":
            return await self._read_stream(resp, t0, chat)
        raw = await read_body(resp, limits)  # also a server that ignored ``stream``
        reading = Reading(limits.max_chars, ended=True)
        extras = Extras()
        try:
            data = json.loads(raw)
        except ValueError as e:
            raise ResponseRejected("malformed", f"not JSON ({e.__class__.__name__}): {raw[:120]!r}") from e
        if not isinstance(data, dict):
            raise ResponseRejected("malformed", f"not a JSON object: {raw[:120]!r}")
        reading.set_error(data.get("error"))
        choice = first_choice(data.get("choices"))  # index 0 only (models/choices.py)
        if choice is not None:
            reading.containers = 1
            if chat:
                msg = choice.get("message") or {}
                if not isinstance(msg, dict):
                    raise ResponseRejected("malformed", "the message is not a JSON object")
                reading.add(msg.get("content"))
                reading.add(msg.get("reasoning_content") or msg.get("reasoning") or None, reasoning=True)
                extras.add_message(msg)
                _check_chars(reading, extras)
            else:
                reading.add(choice.get("text"))
            reading.set_finish(choice.get("finish_reason"))
        usage = data.get("usage")
        reading.usage = usage if isinstance(usage, dict) else {}
        reading.accept()
        return self._completion(reading, time.monotonic() - t0, None, extras)

    async def _read_stream(self, resp: Response, t0: float, chat: bool) -> Completion:
        reading = Reading(self.opts.limits.max_chars, streamed=True)
        extras = Extras()
        ttft: float | None = None
        started = AnswerWatch()
        events = SSEReader(resp, self.opts.limits)
        async for event in events:
            reading.set_error(event.get("error"))
            if isinstance(event.get("usage"), dict) and event["usage"]:
                reading.usage = event["usage"]
            choices = event.get("choices")
            if not isinstance(choices, list):
                continue
            for pos, choice in enumerate(choices):
                if choice_index(choice, pos) != 0:
                    continue  # another choice's delta (n > 1): one answer per request, choice 0
                reading.containers += 1
                if chat:
                    delta = choice.get("delta") or {}
                    if not isinstance(delta, dict):
                        raise ResponseRejected("malformed", "a delta is not a JSON object")
                    piece = reading.add(delta.get("content"))
                    reading.add(delta.get("reasoning_content") or delta.get("reasoning") or None, reasoning=True)
                    extras.add_delta(delta)
                    _check_chars(reading, extras)
                else:
                    piece = reading.add(choice.get("text"))
                if ttft is None and started.feed(piece):
                    ttft = time.monotonic() - t0
                reading.set_finish(choice.get("finish_reason"))
        reading.ended = events.done
        reading.accept()
        return self._completion(reading, time.monotonic() - t0, ttft, extras)

    @staticmethod
    def _completion(reading: Reading, latency: float, ttft: float | None,
                    extras: Extras | None = None) -> Completion:
        """An accepted reading as a Completion; malformed usage numbers are unknown (None), not 0. A refusal or
        tool calls are stored as what they are, a filtered answer as an error (:mod:`.choices`)."""
        usage = reading.usage
        extras = extras or Extras()
        answer = reading.answer
        finish = extras.finish(answer, reading.finish)
        comp = Completion(text=_clean(extras.text(answer)) or "", finish_reason=storable(finish) if finish else None,
                          usage=usage_of(usage, "prompt_tokens", "completion_tokens"), latency_s=latency,
                          reasoning=_clean(reading.thought), reasoning_tokens=_reasoning_tokens(usage),
                          ttft_s=ttft)
        if finish == "content_filter":
            comp.error = FILTERED
        return comp

    def _encoded(self, prompt: Prompt, body: dict[str, Any]) -> RequestBody:
        """``body`` with its JSON bytes made once; a chat prompt's messages are encoded once per prompt (the
        samples of an item, and the models of a run, send the same messages: the last :data:`MESSAGES_KEPT`
        prompts' are kept)."""
        msgs = body.get("messages")
        if msgs is None:
            return RequestBody(body, json.dumps(body).encode())
        try:
            known = self._messages_json.get(prompt)
        except TypeError:  # content parts (images) are not hashable
            return RequestBody(body, json.dumps(body).encode())
        if known is None:
            known = self._remember(prompt, msgs)
        messages_json = known[1]
        # never empty: it has ``model``
        head = json.dumps({key: value for key, value in body.items() if key != "messages"})
        return RequestBody(body, (head[:-1] + ', "messages": ' + messages_json + "}").encode())

    def _heads(self, params: GenParams) -> _Heads:
        """The body's parts that depend on ``params`` only, made once for the run's parameters object (every
        request of a run without per-sample seeds has the same one)."""
        heads = self._last_heads
        if heads is None or heads.params is not params:
            plain = self._params_body(params)
            streamed = None if "stream" in plain else {**plain, "stream": True,
                                                       "stream_options": {"include_usage": True}}
            heads = self._last_heads = _Heads(params, plain, json.dumps(plain), streamed,
                                              None if streamed is None else json.dumps(streamed))
        return heads

    def _chat_request(self, prompt: Prompt, head: dict[str, Any], head_json: str) -> RequestBody:
        """A chat request from its parts made before: the same bytes as ``_encoded`` of the whole body."""
        try:
            known = self._messages_json.get(prompt)
        except TypeError:  # content parts (images) are not hashable
            return self._encoded(prompt, {**head, "messages": [{"role": msg.role, "content": msg.content}
                                                               for msg in prompt.messages]})
        if known is None:
            msgs = [{"role": msg.role, "content": msg.content} for msg in prompt.messages]
            known = self._remember(prompt, msgs)
        msgs, messages_json = known
        return RequestBody({**head, "messages": msgs},
                           (head_json[:-1] + ', "messages": ' + messages_json + "}").encode())

    def _remember(self, prompt: Prompt, msgs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
        if len(self._messages_json) >= MESSAGES_KEPT:
            del self._messages_json[next(iter(self._messages_json))]
        known = self._messages_json[prompt] = (msgs, json.dumps(msgs))
        return known

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        if not prompt.is_chat:
            path, body = self._body(prompt, params)
            if self._stream and "stream" not in body:
                comp = await self.request(path, self._encoded(prompt, {**body, "stream": True,
                                                                       "stream_options": {"include_usage": True}}))
                if not stream_rejected(comp):
                    return comp
                self._stream = False  # this server does not stream: ask it plainly from now on
            return await self.request(path, self._encoded(prompt, body))
        heads = self._heads(params)
        if self._stream and heads.streamed is not None:
            assert heads.streamed_json is not None
            comp = await self.request("/chat/completions", self._chat_request(prompt, heads.streamed,
                                                                              heads.streamed_json))
            if not stream_rejected(comp):
                return comp
            self._stream = False  # this server does not stream: ask it plainly from now on
        return await self.request("/chat/completions", self._chat_request(prompt, heads.plain, heads.plain_json))


@dataclass(frozen=True, slots=True)
class _Heads:
    """One parameters object's request body without the prompt, plain and streamed, with their JSON."""

    params: GenParams
    plain: dict[str, Any]
    plain_json: str
    streamed: dict[str, Any] | None  # None: the body names ``stream`` itself (``--extra-body``)
    streamed_json: str | None


def from_spec(spec: str, concurrency: int, options: HTTPOptions | None = None) -> OpenAICompatBackend:
    kind, _, rest = spec.partition("/")
    if kind == "openai":
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelError(f"{spec}: set OPENAI_API_KEY in the environment")
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        return OpenAICompatBackend(spec, rest, [base], key, concurrency, options)
    name, sep, urls = rest.partition("@")
    if not sep or not name or not urls:
        raise ModelError(f"{spec!r}: expected openai-compat/<model-name>@http://host:port/v1[,URL2,...]")
    url_list = [url.strip() for url in urls.split(",") if url.strip()]
    for url in url_list:
        if not url.startswith(("http://", "https://")):
            raise ModelError(f"{spec!r}: {url!r} is not an http(s) URL")
    key = os.environ.get("REASONEVAL_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return OpenAICompatBackend(spec, name, url_list, key, concurrency, options)
