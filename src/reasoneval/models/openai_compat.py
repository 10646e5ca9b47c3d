"""OpenAI-compatible chat/completions over HTTP (aiohttp), across one or more replicas.

Measured choice: httpx's AsyncClient stalls around 40-50 requests/s under concurrency
(encode/httpx#3215); aiohttp sustains >90% of ideal at 64 concurrent requests (bench/throughput.py).

Reliability (docs/reliability.md): connect / read / total timeouts per attempt (:class:`HTTPOptions`); a
request still unanswered after the hedge delay gives up its concurrency slot and is raced by a second copy
(first answer wins, the other is cancelled), so a few hung requests never starve the rest; 429s shrink the
concurrency at most once a second and it grows back once they stop; redirects are not followed; error
strings are redacted of credentials and model text is made storable (lone surrogates escaped).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections import deque
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp

from ..core.safetext import redact, redact_secrets, register_secret, storable
from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError
from .ratelimit import AdaptiveLimiter

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass
class Replica:
    url: str
    outstanding: int = 0
    done: int = 0
    failures: int = 0
    down_until: float = 0.0
    busy_s: float = 0.0
    first_t: float = 0.0
    last_t: float = 0.0

    def healthy(self, now: float) -> bool:
        return now >= self.down_until


@dataclass
class HTTPOptions:
    timeout_s: float = 600.0  # total time of one attempt
    connect_timeout_s: float = 10.0
    read_timeout_s: float | None = None  # longest silence while reading; None: the total
    #: resend a request unanswered after this long (first answer wins); None: adaptive (4 x the p90 latency,
    #: at least ``hedge_min_s``; 6 x ``hedge_min_s`` until 10 answers are in); 0: never
    hedge_after_s: float | None = None
    hedge_min_s: float = 10.0
    max_retries: int = 6
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    replica_cooldown_s: float = 5.0
    extra_body: dict[str, Any] = field(default_factory=dict)


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, overload: bool = False,
                 replica_down: bool = False) -> None:
        super().__init__(reason)
        self.reason = redact(reason)
        self.replica: Replica | None = None
        self.retry_after = retry_after
        self.overload = overload
        self.replica_down = replica_down


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class OpenAICompatBackend:
    batched = False
    supports_images = True

    def __init__(self, spec: str, model: str, base_urls: list[str], api_key: str | None,
                 concurrency: int = 32, options: HTTPOptions | None = None) -> None:
        if not base_urls:
            raise ModelError(f"{spec}: no base URL")
        self.spec = spec
        self.model = model
        self.replicas = [Replica(u.rstrip("/")) for u in base_urls]
        self.api_key = api_key
        register_secret(api_key)
        self.max_concurrency = concurrency
        self.opts = options or HTTPOptions()
        self.limiter = AdaptiveLimiter(concurrency)
        self._session: aiohttp.ClientSession | None = None
        self._rng = random.Random()
        self._latencies: deque[float] = deque(maxlen=256)
        self.hedges = 0

    async def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            headers = {"Content-Type": "application/json"}
            if self.api_key:
                headers["Authorization"] = f"Bearer {self.api_key}"
            conn = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            o = self.opts
            self._session = aiohttp.ClientSession(
                headers=headers, connector=conn,
                timeout=aiohttp.ClientTimeout(total=o.timeout_s, sock_connect=o.connect_timeout_s,
                                              sock_read=o.read_timeout_s or o.timeout_s),
                json_serialize=json.dumps)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    def _pick(self, avoid: Replica | None) -> Replica:
        now = time.monotonic()
        healthy = [r for r in self.replicas if r.healthy(now)] or self.replicas
        if avoid is not None and len(healthy) > 1:
            healthy = [r for r in healthy if r is not avoid] or healthy
        least = min(r.outstanding for r in healthy)
        return self._rng.choice([r for r in healthy if r.outstanding == least])

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
        body.update(self.opts.extra_body)
        if prompt.is_chat:
            body["messages"] = [{"role": m.role, "content": m.content} for m in prompt.messages]
            return "/chat/completions", body
        body["prompt"] = prompt.text
        return "/completions", body

    async def _once(self, replica: Replica, path: str, body: dict[str, Any], chat: bool) -> Completion:
        session = await self._get_session()
        t0 = time.monotonic()
        try:
            async with session.post(replica.url + path, json=body, allow_redirects=False) as resp:
                raw = await resp.read()
                if resp.status in RETRYABLE_STATUS:
                    raise _Retryable(f"HTTP {resp.status} from {replica.url}",
                                     parse_retry_after(resp.headers.get("Retry-After")),
                                     overload=resp.status == 429)
                if 300 <= resp.status < 400:
                    where = resp.headers.get("Location", "?")[:200]
                    return Completion(error=redact(f"HTTP {resp.status} redirect from {replica.url} to {where} not "
                                                   "followed: use the final URL in --model"),
                                      latency_s=time.monotonic() - t0)
                if resp.status >= 400:
                    snippet = raw[:300].decode("utf-8", "replace")
                    return Completion(error=storable(redact(f"HTTP {resp.status} from {replica.url}: {snippet}")),
                                      latency_s=time.monotonic() - t0)
        except TimeoutError as e:  # aiohttp's connect/read timeouts are TimeoutErrors too
            o = self.opts
            kind = ("connect" if "connect" in e.__class__.__name__.lower() else "read" if isinstance(
                e, aiohttp.ClientError) else "total")
            limit = {"connect": o.connect_timeout_s, "read": o.read_timeout_s or o.timeout_s,
                     "total": o.timeout_s}[kind]
            raise _Retryable(f"{kind} timeout after {limit:g}s from {replica.url}",
                             replica_down=kind == "connect") from e
        except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError) as e:  # refused or reset: replica down
            raise _Retryable(f"cannot reach {replica.url}: {e.__class__.__name__}", replica_down=True) from e
        except aiohttp.ClientPayloadError as e:
            raise _Retryable(f"broken response from {replica.url}: {e}") from e
        except aiohttp.ClientError as e:
            raise _Retryable(f"HTTP client error from {replica.url}: {e.__class__.__name__}: {e}") from e
        latency = time.monotonic() - t0
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            if chat:
                msg = choice.get("message") or {}
                text = msg.get("content") or ""
                reasoning = msg.get("reasoning_content") or msg.get("reasoning")
                if reasoning and "<think>" not in text:
                    text = f"<think>{reasoning}</think>{text}"
            else:
                text = choice.get("text") or ""
            if not isinstance(text, str):
                raise TypeError("content is not a string")
            u = data.get("usage") or {}
            usage = Usage(int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0))
            finish = choice.get("finish_reason")
            return Completion(text=storable(redact_secrets(text)),
                              finish_reason=storable(finish) if isinstance(finish, str) else None, usage=usage,
                              latency_s=latency)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            raise _Retryable(f"malformed response from {replica.url}: {e.__class__.__name__}: "
                             f"{raw[:120]!r}") from e

    def hedge_delay(self) -> float | None:
        o = self.opts
        if o.hedge_after_s is not None:
            return o.hedge_after_s or None
        if len(self._latencies) < 10:
            return 6 * o.hedge_min_s
        lat = sorted(self._latencies)
        return max(o.hedge_min_s, 4 * lat[int(0.9 * (len(lat) - 1))])

    async def _on(self, replica: Replica, path: str, body: dict[str, Any], chat: bool) -> Completion:
        replica.outstanding += 1
        t0 = time.monotonic()
        try:
            comp = await self._once(replica, path, body, chat)
        except _Retryable as e:
            e.replica = replica
            replica.failures += 1
            raise
        finally:
            replica.outstanding -= 1
        now = time.monotonic()
        replica.done += 1
        replica.busy_s += now - t0
        replica.first_t = replica.first_t or t0
        replica.last_t = now
        return comp

    async def _hedged(self, path: str, body: dict[str, Any], chat: bool, avoid: Replica | None) -> Completion:
        """One attempt; past the hedge delay it stops holding a slot and a second copy races it."""
        await self.limiter.acquire()
        held = True
        first_replica = self._pick(avoid)
        tasks = [asyncio.create_task(self._on(first_replica, path, body, chat))]
        try:
            done, _ = await asyncio.wait(tasks, timeout=self.hedge_delay())
            if not done:
                held = False
                await self.limiter.release()  # a straggler must not starve the other requests
                await self.limiter.acquire()
                held = True
                if not tasks[0].done():
                    self.hedges += 1
                    tasks.append(asyncio.create_task(self._on(self._pick(first_replica), path, body, chat)))
            pending = set(tasks)
            err: _Retryable | None = None
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    try:
                        return t.result()
                    except _Retryable as e:
                        err = e
            assert err is not None
            raise err
        finally:
            for t in tasks:
                t.cancel()
            if held:
                await self.limiter.release()

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        path, body = self._body(prompt, params)
        last_reason = ""
        avoid: Replica | None = None
        t_start = time.monotonic()
        for attempt in range(self.opts.max_retries + 1):
            t0 = time.monotonic()
            try:
                comp = await self._hedged(path, body, prompt.is_chat, avoid)
            except _Retryable as e:
                last_reason = e.reason
                if e.replica_down and e.replica is not None:
                    e.replica.down_until = time.monotonic() + self.opts.replica_cooldown_s
                    avoid = e.replica
                retry_after = None if e.retry_after is None else min(e.retry_after, self.opts.backoff_max_s)
                if e.overload:
                    self.limiter.on_overload(retry_after)
                delay = retry_after if retry_after is not None else min(
                    self.opts.backoff_max_s, self.opts.backoff_base_s * 2 ** attempt)
                delay *= 0.5 + self._rng.random()  # jitter
                if e.replica_down and len(self.replicas) > 1:
                    delay = 0.0  # another replica can take it now
            else:
                self.limiter.on_success()
                now = time.monotonic()
                if comp.error is None:
                    self._latencies.append(now - t0)
                comp.latency_s = now - t_start
                return comp
            if attempt < self.opts.max_retries:
                await asyncio.sleep(delay)
        return Completion(error=redact(f"gave up after {self.opts.max_retries + 1} attempts: {last_reason}"),
                          latency_s=time.monotonic() - t_start)

    def replica_stats(self) -> list[dict[str, Any]]:
        out = []
        for r in self.replicas:
            span = (r.last_t - r.first_t) if r.done else 0.0
            out.append({"url": r.url, "done": r.done, "failures": r.failures,
                        "throughput_rps": round(r.done / span, 2) if span > 0 else None})
        return out


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
