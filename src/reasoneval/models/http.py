"""What every HTTP model backend shares: one aiohttp session, replicas, timeouts, retries, limiter, hedging.

A backend (OpenAI-compatible, Anthropic) subclasses :class:`HTTPBackend` and supplies only its headers and
``_read`` (one successful response -> :class:`Completion`); everything else is here, so no backend copies it.

Measured choice: httpx's AsyncClient stalls around 40-50 requests/s under concurrency
(encode/httpx#3215); aiohttp sustains >90% of ideal at 64 concurrent requests (bench/throughput.py).

Reliability (docs/reliability.md): connect / read / total timeouts per attempt (:class:`HTTPOptions`); a
request still unanswered after the hedge delay gives up its concurrency slot and is raced by a second copy
(first answer wins, the other is cancelled), so a few hung requests never starve the rest; 429s shrink the
concurrency at most once a second and it grows back once they stop (``Retry-After`` honoured); retries back
off with jitter; redirects are not followed; error strings are redacted of credentials and model text is made
storable (lone surrogates escaped). Reading a response: every 2xx body is judged by :mod:`.validate` (one rule
for streamed and plain responses) within the sizes of :mod:`.limits`; anything reading it raises is a retried
attempt (``_read_checked``); text a server sent reaches an error message only through
:func:`~reasoneval.core.safetext.server_text` (control codes stripped, redacted, then cut).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import deque
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp

from ..core.safetext import redact, register_secret, server_text
from ..core.types import Completion
from .base import ModelError
from .limits import ResponseLimits, SSEReader, read_capped
from .ratelimit import AdaptiveLimiter
from .validate import ResponseRejected

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}  # 529: Anthropic "overloaded"
OVERLOAD_STATUS = {429, 529}


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
    #: stream responses (server-sent events) to measure the time to the first answer token (thinking time);
    #: a server that rejects ``stream`` is asked again without it
    stream: bool = False
    #: how much of one response is read (bytes received, bytes decompressed, answer characters): :mod:`.limits`
    limits: ResponseLimits = field(default_factory=ResponseLimits)


class Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, overload: bool = False,
                 replica_down: bool = False) -> None:
        super().__init__(reason)
        self.reason = server_text(reason, 500)  # control codes stripped, credentials redacted, then cut
        self.replica: Replica | None = None
        self.retry_after = retry_after
        self.overload = overload
        self.replica_down = replica_down


_Retryable = Retryable  # the name it had in openai_compat


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


async def sse_events(resp: aiohttp.ClientResponse, limits: ResponseLimits | None = None) -> Any:
    """The ``data:`` payloads of a server-sent-events response as JSON objects (``[DONE]`` ends it), within
    ``limits``; :class:`~.limits.SSEReader` also tells whether ``[DONE]`` came."""
    async for ev in SSEReader(resp, limits or ResponseLimits()):
        yield ev


#: how much of an error (4xx / 3xx) body is read: its first characters go into the item's error message
ERROR_BODY_BYTES = 64 * 1024
ERROR_SNIPPET_CHARS = 300


@dataclass
class _Race:
    """A request's first copy and the hedged second copy (see ``HTTPBackend._hedged``)."""

    held: bool = True  # the request holds a limiter slot
    first_running: bool = False  # the caller is suspended in the first copy's await
    won: bool = False  # the second copy answered while the first was still running
    answer: Completion | None = None
    copy: asyncio.Task[Completion] | None = None


class HTTPBackend:
    """Base of the HTTP backends. Subclasses set ``spec`` and implement ``_headers`` and ``_read``."""

    batched = False
    supports_images = True

    def __init__(self, spec: str, base_urls: list[str], api_key: str | None, concurrency: int = 32,
                 options: HTTPOptions | None = None) -> None:
        if not base_urls:
            raise ModelError(f"{spec}: no base URL")
        self.spec = spec
        self.replicas = [Replica(u.rstrip("/")) for u in base_urls]
        self.api_key = api_key
        register_secret(api_key)
        self.max_concurrency = concurrency
        self.opts = options or HTTPOptions()
        self.limiter = AdaptiveLimiter(concurrency)
        self._session: aiohttp.ClientSession | None = None
        self._rng = random.Random()
        self._latencies: deque[float] = deque(maxlen=256)
        self._latency_count = 0  # latencies recorded so far
        self._hedge_cache: tuple[int, float] | None = None  # (count when computed, hedge delay)
        self.hedges = 0

    # ---- what a backend supplies
    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json"}

    async def _read(self, resp: aiohttp.ClientResponse, replica: Replica, t0: float,
                    body: dict[str, Any]) -> Completion:
        """One successful (2xx) response as a Completion; one that is not an answer raises
        :class:`~.validate.ResponseRejected` (see :mod:`.validate` for the rule, :mod:`.limits` for the sizes)."""
        raise NotImplementedError

    async def _read_checked(self, resp: aiohttp.ClientResponse, replica: Replica, t0: float,
                            body: dict[str, Any]) -> Completion:
        """``_read``, where any failure to make an answer of the response is a :class:`Retryable` attempt:
        a rejected response (malformed, incomplete, oversized) and also whatever else reading it raised (a
        number too large for an int, JSON nested too deep...), so one response can never end the run."""
        try:
            return await self._read(resp, replica, t0, body)
        except (TimeoutError, aiohttp.ClientError):
            raise  # transport failures: handled (and named) by ``_once``
        except ResponseRejected as e:
            raise Retryable(f"{e.kind} response from {replica.url}: {e.reason}") from e
        except Exception as e:  # noqa: BLE001 - see the docstring
            raise Retryable(f"malformed response from {replica.url}: {e.__class__.__name__}: "
                            f"{str(e)[:120]}") from e

    # ---- shared machinery
    async def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            conn = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            o = self.opts
            self._session = aiohttp.ClientSession(
                headers=self._headers(), connector=conn,
                timeout=aiohttp.ClientTimeout(total=o.timeout_s, sock_connect=o.connect_timeout_s,
                                              sock_read=o.read_timeout_s or o.timeout_s),
                json_serialize=json.dumps)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    def _pick(self, avoid: Replica | None) -> Replica:
        if len(self.replicas) == 1:
            return self.replicas[0]
        now = time.monotonic()
        healthy = [r for r in self.replicas if r.healthy(now)] or self.replicas
        if avoid is not None and len(healthy) > 1:
            healthy = [r for r in healthy if r is not avoid] or healthy
        least = min(r.outstanding for r in healthy)
        return self._rng.choice([r for r in healthy if r.outstanding == least])

    async def _once(self, replica: Replica, path: str, body: dict[str, Any]) -> Completion:
        session = await self._get_session()
        t0 = time.monotonic()
        try:
            async with session.post(replica.url + path, json=body, allow_redirects=False) as resp:
                if resp.status in RETRYABLE_STATUS:
                    await read_capped(resp, ERROR_BODY_BYTES)  # drained (bounded) so the connection is reused
                    raise Retryable(f"HTTP {resp.status} from {replica.url}",
                                    parse_retry_after(resp.headers.get("Retry-After")),
                                    overload=resp.status in OVERLOAD_STATUS)
                if 300 <= resp.status < 400:
                    where = server_text(resp.headers.get("Location", "?"), 200)
                    return Completion(error=redact(f"HTTP {resp.status} redirect from {replica.url} to {where} not "
                                                   "followed: use the final URL in --model"),
                                      latency_s=time.monotonic() - t0)
                if resp.status >= 400:
                    # redacted before it is cut: a key at byte 280 must not leave its first characters behind
                    snippet = server_text(await read_capped(resp, ERROR_BODY_BYTES), ERROR_SNIPPET_CHARS)
                    return Completion(error=f"HTTP {resp.status} from {replica.url}: {snippet}",
                                      latency_s=time.monotonic() - t0)
                return await self._read_checked(resp, replica, t0, body)
        except TimeoutError as e:  # aiohttp's connect/read timeouts are TimeoutErrors too
            o = self.opts
            kind = ("connect" if "connect" in e.__class__.__name__.lower() else "read" if isinstance(
                e, aiohttp.ClientError) else "total")
            limit = {"connect": o.connect_timeout_s, "read": o.read_timeout_s or o.timeout_s,
                     "total": o.timeout_s}[kind]
            raise Retryable(f"{kind} timeout after {limit:g}s from {replica.url}",
                            replica_down=kind == "connect") from e
        except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError) as e:  # refused or reset: replica down
            raise Retryable(f"cannot reach {replica.url}: {e.__class__.__name__}", replica_down=True) from e
        except aiohttp.ClientPayloadError as e:
            raise Retryable(f"broken response from {replica.url}: {e}") from e
        except aiohttp.ClientError as e:
            raise Retryable(f"HTTP client error from {replica.url}: {e.__class__.__name__}: {e}") from e

    def hedge_delay(self) -> float | None:
        o = self.opts
        if o.hedge_after_s is not None:
            return o.hedge_after_s or None
        n = len(self._latencies)
        if n < 10:
            return 6 * o.hedge_min_s
        # the p90 of the last 256 latencies, re-sorted after every 32 new ones (not on every request)
        if self._hedge_cache is None or self._latency_count - self._hedge_cache[0] >= 32:
            lat = sorted(self._latencies)
            self._hedge_cache = (self._latency_count, max(o.hedge_min_s, 4 * lat[int(0.9 * (n - 1))]))
        return self._hedge_cache[1]

    async def _on(self, replica: Replica, path: str, body: dict[str, Any]) -> Completion:
        replica.outstanding += 1
        t0 = time.monotonic()
        try:
            comp = await self._once(replica, path, body)
        except Retryable as e:
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

    async def _hedged(self, path: str, body: dict[str, Any], avoid: Replica | None) -> Completion:
        """One attempt; past the hedge delay it stops holding a slot and a second copy races it.

        The first copy runs in the caller's own task (no task per request); a timer starts the second copy as a
        task only when the first is still unanswered at the hedge delay. If the second copy answers first it
        cancels the first copy's await, and that cancellation (only that one) is turned into its answer."""
        await self.limiter.acquire()
        race = _Race()
        first_replica = self._pick(avoid)
        delay = self.hedge_delay()
        me = asyncio.current_task()
        timer = None
        if delay is not None and me is not None:
            timer = asyncio.get_running_loop().call_later(delay, self._start_copy, race, first_replica, path, body, me)
        try:
            race.first_running = True
            try:
                return await self._on(first_replica, path, body)
            except asyncio.CancelledError:
                race.first_running = False
                if race.won and me is not None and me.uncancel() == 0:  # cancelled by the winning copy only
                    assert race.answer is not None
                    return race.answer
                raise
            except Retryable:
                race.first_running = False
                if race.copy is not None:  # the copy may still answer (or its error is the last one)
                    return await race.copy
                raise
            finally:
                race.first_running = False
        finally:
            if timer is not None:
                timer.cancel()
            if race.copy is not None:
                if not race.copy.done():
                    race.copy.cancel()
                elif not race.copy.cancelled():
                    race.copy.exception()  # retrieved: a lost race is not an unhandled error
            if race.held:
                await self.limiter.release()

    def _start_copy(self, race: _Race, first: Replica, path: str, body: dict[str, Any], me: asyncio.Task[Any]
                    ) -> None:
        if race.first_running:
            race.copy = asyncio.create_task(self._copy(race, first, path, body, me))

    async def _copy(self, race: _Race, first: Replica, path: str, body: dict[str, Any], me: asyncio.Task[Any]
                    ) -> Completion:
        race.held = False
        await self.limiter.release()  # a straggler must not starve the other requests
        await self.limiter.acquire()
        race.held = True  # (if the first copy answered meanwhile, its caller cancels this one)
        self.hedges += 1
        comp = await self._on(self._pick(first), path, body)
        if race.first_running:
            race.won, race.answer = True, comp
            me.cancel()
        return comp

    async def request(self, path: str, body: dict[str, Any]) -> Completion:
        """POST ``body`` with retries, backoff, the limiter and hedging; failures end as ``Completion.error``."""
        last_reason = ""
        avoid: Replica | None = None
        t_start = time.monotonic()
        for attempt in range(self.opts.max_retries + 1):
            t0 = time.monotonic()
            try:
                comp = await self._hedged(path, body, avoid)
            except Retryable as e:
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
                    self._latency_count += 1
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


def stream_rejected(comp: Completion) -> bool:
    """A 4xx answer that names ``stream``: the server does not stream; ask again without it."""
    e = comp.error or ""
    return e.startswith(("HTTP 400", "HTTP 404", "HTTP 415", "HTTP 422", "HTTP 501")) and "stream" in e.lower()
