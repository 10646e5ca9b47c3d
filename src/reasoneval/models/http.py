"""What every HTTP model backend shares: one aiohttp session, replicas, timeouts, retries, limiter, hedging.

A backend (OpenAI-compatible, Anthropic) subclasses :class:`HTTPBackend` and supplies only its headers and
``_read`` (one successful response -> :class:`Completion`); everything else is here, so no backend copies it.

Measured choice: httpx's AsyncClient stalls around 40-50 requests/s under concurrency
(encode/httpx#3215); aiohttp sustains >90% of ideal at 64 concurrent requests (bench/throughput.py).

Reliability (docs/reliability.md, "Scheduling and timeouts"): connect / read / total timeouts per attempt
(:class:`HTTPOptions`); a request holds no slot (the limiter's nor the runner's) while it waits out a backoff
or a ``Retry-After``, which delays only that request; a request still unanswered after the hedge delay gives
its slots back and is raced by a second copy (first answer wins, the other is cancelled; stragglers capped),
and an attempt no copy answered within the abandonment window is cancelled and retried (both windows follow
the observed p99 latency); 429s lower the concurrency at most once per back-off window (:mod:`.ratelimit`);
retries back off with jitter; redirects are not followed; error strings are redacted of credentials and model
text is made storable (lone surrogates escaped). Reading a response: every 2xx body is judged by :mod:`.validate` (one rule
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
from .ratelimit import AdaptiveLimiter, Lease, current_lease
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
    timeout_s: float = 600.0  # total time of one attempt (the hard cap: abandonment usually comes first)
    connect_timeout_s: float = 10.0
    read_timeout_s: float | None = None  # longest silence while reading; None: the total
    #: past this, an unanswered request gives its slots back and a second copy races it (first answer wins);
    #: None: adaptive, ``hedge_multiple`` x the p99 latency of the answers so far, clamped to
    #: [``hedge_min_s``, ``hedge_max_s``]; 0: never
    hedge_after_s: float | None = None
    hedge_multiple: float = 4.0
    hedge_min_s: float = 1.0
    hedge_max_s: float = 300.0
    #: past this (from the start of the copy still running), an attempt no copy answered is abandoned: its
    #: copies are cancelled and it is retried like a 5xx, with both windows doubled; None: adaptive,
    #: ``abandon_multiple`` x the p99 latency, at least 2 x ``hedge_min_s``, at most ``timeout_s``; 0: never
    #: (only the timeouts end an attempt). Adaptive windows start once :meth:`HTTPBackend.min_samples` answers
    #: are in (until then only the timeouts apply); unanswered attempts are looked at again every second until
    #: then, so a request hung before anything was known is hedged and abandoned as soon as the p99 is.
    abandon_after_s: float | None = None
    abandon_multiple: float = 8.0
    #: copies in flight that gave their slots back (stragglers); None: the backend's concurrency
    max_stragglers: int | None = None
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


UNSURE_CHECK_S = 1.0  # until the p99 is known, unanswered requests are looked at again this often


class Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, overload: bool = False,
                 replica_down: bool = False) -> None:
        super().__init__(reason)
        self.reason = server_text(reason, 500)  # control codes stripped, credentials redacted, then cut
        self.replica: Replica | None = None
        self.retry_after = retry_after
        self.overload = overload
        self.replica_down = replica_down
        self.sent_at: float | None = None  # when the attempt was sent (set by the scheduler)


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


class Abandoned(Retryable):
    """An attempt no copy answered within the abandonment window (cancelled, retried with wider windows)."""


@dataclass
class _Race:
    """One attempt: its first copy and the hedged second copy (see ``HTTPBackend._hedged``)."""

    t0: float  # when the first copy was sent
    first: Replica
    path: str
    body: dict[str, Any]
    me: asyncio.Task[Any] | None  # the caller's task, where the first copy runs
    lease: Lease | None  # the runner's slot of this request, given back with the limiter's past the hedge delay
    held: bool = True  # the attempt holds a limiter slot
    first_running: bool = False  # the caller is suspended in the first copy's await
    straggling: bool = False  # the first copy gave its slots back and still runs (counted in ``stragglers``)
    won: bool = False  # the second copy answered while the first was still running
    answer: Completion | None = None
    copy: asyncio.Task[Completion] | None = None
    t_copy: float | None = None  # when the second copy was sent
    abandoned: str | None = None  # why the attempt was abandoned (no copy answered in time)
    over: bool = False  # the attempt has returned
    stretch: float = 1.0  # the windows' factor: doubled for each earlier attempt of the request abandoned
    timer: asyncio.TimerHandle | None = None


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
        self._p99_cache: tuple[int, float] | None = None  # (count when computed, p99 latency)
        self.hedges = 0  # second copies sent
        self.abandoned = 0  # attempts abandoned (no copy answered within the abandonment window)
        self.stragglers = 0  # copies in flight that gave their slots back

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

    # ---- scheduling: hedging, abandonment, retries (docs/reliability.md, "Scheduling and timeouts")
    def _p99(self) -> float | None:
        """The p99 latency of the last 256 answered copies (None until :meth:`min_samples`), re-sorted every 32."""
        n = len(self._latencies)
        if n < self.min_samples():
            return None
        if self._p99_cache is None or self._latency_count - self._p99_cache[0] >= 32:
            lat = sorted(self._latencies)
            self._p99_cache = (self._latency_count, lat[int(0.99 * (n - 1))])
        return self._p99_cache[1]

    def hedge_delay(self) -> float | None:
        """Seconds after which an unanswered copy gives its slots back and a second copy is sent (None: never)."""
        o = self.opts
        if o.hedge_after_s is not None:
            return o.hedge_after_s or None
        p99 = self._p99()
        if p99 is None:
            return None  # nothing known yet: no hedge (the attempt is looked at again every second)
        return min(o.hedge_max_s, max(o.hedge_min_s, o.hedge_multiple * p99))

    def abandon_after(self) -> float | None:
        """Seconds after which an attempt whose copies are all unanswered is abandoned (None: never)."""
        o = self.opts
        if o.abandon_after_s is not None:
            return o.abandon_after_s or None
        p99 = self._p99()
        if p99 is None:
            return None  # nothing known yet: the timeouts alone (the attempt is looked at again every second)
        return min(o.timeout_s, max(2 * o.hedge_min_s, o.abandon_multiple * p99))

    def min_samples(self) -> int:
        """Answers before the adaptive windows follow the p99: two rounds of the concurrency (at least 20, at
        most 100). The first answers of a run are its fastest (the slow ones of the first round are still
        running), so a p99 of fewer answers would be too short."""
        return min(100, max(20, 2 * self.max_concurrency))

    def _windows_settled(self) -> bool:
        o = self.opts
        return (o.hedge_after_s is not None and o.abandon_after_s is not None) or self._p99() is not None

    async def _on(self, replica: Replica, path: str, body: dict[str, Any]) -> Completion:
        replica.outstanding += 1
        t0 = time.monotonic()
        try:
            comp = await self._once(replica, path, body)
        except Retryable as e:
            e.replica = replica
            e.sent_at = t0
            replica.failures += 1
            raise
        finally:
            replica.outstanding -= 1
        now = time.monotonic()
        replica.done += 1
        replica.busy_s += now - t0
        replica.first_t = replica.first_t or t0
        replica.last_t = now
        if comp.error is None:  # the latency of this copy alone: never the time a hedged request waited
            self._latencies.append(now - t0)
            self._latency_count += 1
        return comp

    async def _hedged(self, path: str, body: dict[str, Any], avoid: Replica | None, again: bool = False,
                      stretch: float = 1.0) -> Completion:
        """One attempt. Past the hedge delay it gives its slots back and a second copy races it; past the
        abandonment window of the copy still running it is cancelled and raises :class:`Retryable`.

        The first copy runs in the caller's own task (no task per request); a timer (:meth:`_tick`) starts the
        second copy as a task only when the first is still unanswered at the hedge delay. If the second copy
        answers first it cancels the first copy's await, and that cancellation (only that one) is turned into
        its answer; an abandonment's cancellation is turned into a :class:`Retryable`. ``again``: a retry, which
        takes a free limiter slot before requests not yet started; ``stretch``: the hedge and abandonment windows'
        factor (an answer slower than everything seen so far gets more time at each retry)."""
        await self.limiter.acquire(again=again)
        me = asyncio.current_task()
        race = _Race(time.monotonic(), self._pick(avoid), path, body, me, current_lease(), stretch=stretch)
        if me is not None:
            self._arm(race, self._next_check(race, race.t0))
        try:
            try:
                race.first_running = True
                try:
                    return await self._on(race.first, path, body)
                finally:  # the first copy is over (answered, failed or cancelled)
                    race.first_running = False
                    if race.straggling:
                        race.straggling = False
                        self.stragglers -= 1
            except asyncio.CancelledError:
                if (race.won or race.abandoned) and me is not None and me.uncancel() == 0:  # not from outside
                    if race.won:
                        assert race.answer is not None
                        return race.answer
                    raise self._abandonment(race) from None
                raise
            except Retryable:
                if race.copy is None:
                    raise
                try:  # the copy may still answer (or its error is the last one)
                    return await race.copy
                except asyncio.CancelledError:
                    if race.abandoned and me is not None and not me.cancelling():
                        raise self._abandonment(race) from None
                    raise
        finally:
            race.over = True
            if race.timer is not None:
                race.timer.cancel()
            if race.copy is not None:
                if not race.copy.done():
                    race.copy.cancel()
                elif not race.copy.cancelled():
                    race.copy.exception()  # retrieved: a lost race is not an unhandled error
            if race.held:
                self.limiter.release()

    def _abandonment(self, race: _Race) -> Abandoned:
        self.abandoned += 1
        e = Abandoned(race.abandoned or "abandoned")
        e.sent_at = race.t0
        return e

    def _next_check(self, race: _Race, now: float) -> float | None:
        """Seconds until ``race`` must be looked at again (hedge or abandon), None: never."""
        if race.copy is not None and race.t_copy is None:
            return None  # the copy waits for its slots; it arms the timer once it is sent
        hedge, abandon = self._windows(race)
        if race.copy is None:
            waits = [t - (now - race.t0) for t in (hedge, abandon) if t is not None]
        else:
            assert race.t_copy is not None
            waits = [] if abandon is None else [abandon - (now - race.t_copy)]
        wait = min(waits) if waits else None
        if not self._windows_settled():  # the windows will follow the p99 once it is known: look again soon
            wait = UNSURE_CHECK_S if wait is None else min(wait, UNSURE_CHECK_S)
        return wait

    def _arm(self, race: _Race, wait: float | None) -> None:
        if wait is not None:
            race.timer = asyncio.get_running_loop().call_later(max(wait, 0.0), self._tick, race)

    def _tick(self, race: _Race) -> None:
        """The attempt's timer: hedge, abandon, or look again later (the windows follow the observed p99)."""
        race.timer = None
        if race.over or race.won:
            return
        now = time.monotonic()
        hedge, abandon = self._windows(race)
        if race.copy is None:
            age = now - race.t0
            if abandon is not None and age >= abandon:
                return self._abandon(race, abandon)
            if hedge is not None and age >= hedge and race.first_running:
                cap = self.opts.max_stragglers if self.opts.max_stragglers is not None else self.max_concurrency
                if self.stragglers < cap:
                    return self._start_copy(race)
                return self._arm(race, UNSURE_CHECK_S)  # too many stragglers: hedge later
        elif race.t_copy is not None and abandon is not None and now - race.t_copy >= abandon:
            return self._abandon(race, abandon)
        self._arm(race, self._next_check(race, now))

    def _windows(self, race: _Race) -> tuple[float | None, float | None]:
        """The hedge delay and abandonment window of this attempt (stretched after abandoned attempts)."""
        hedge, abandon = self.hedge_delay(), self.abandon_after()
        if race.stretch == 1.0:
            return hedge, abandon
        return (None if hedge is None else min(self.opts.hedge_max_s, hedge * race.stretch),
                None if abandon is None else min(self.opts.timeout_s, abandon * race.stretch))

    def _abandon(self, race: _Race, after: float) -> None:
        o = self.opts
        p99 = self._p99()
        how = ("--abandon-after" if o.abandon_after_s is not None or p99 is None else
               f"{o.abandon_multiple:g} x the p99 latency {p99:.3g}s of the answers so far, at least "
               f"{2 * o.hedge_min_s:g}s")
        if race.stretch > 1:
            how += f", x{race.stretch:g} after earlier abandoned attempts"
        race.abandoned = f"no answer within {after:.3g}s ({how}): abandoned"
        if race.copy is not None and not race.copy.done():
            race.copy.cancel()
        if race.first_running and race.me is not None:
            race.me.cancel()

    def _start_copy(self, race: _Race) -> None:
        """The hedge: the first copy gives its slots back (a straggler must not starve the other requests)
        and keeps listening; a second copy is sent once it holds slots of its own."""
        race.held = False
        self.limiter.release()
        if race.lease is not None:
            race.lease.give()
        race.straggling = True
        self.stragglers += 1
        race.copy = asyncio.create_task(self._copy(race))

    async def _copy(self, race: _Race) -> Completion:
        if race.lease is not None:
            await race.lease.take()
        await self.limiter.acquire(again=True)
        race.held = True  # (if the first copy answered meanwhile, its caller cancels this one)
        self.hedges += 1
        race.t_copy = time.monotonic()
        if race.timer is not None:
            race.timer.cancel()
        self._arm(race, self._next_check(race, race.t_copy))
        comp = await self._on(self._pick(race.first), race.path, race.body)
        if race.first_running and race.me is not None:
            race.won, race.answer = True, comp
            race.me.cancel()
        return comp

    async def _wait(self, seconds: float) -> None:
        """A backoff or ``Retry-After`` wait: the runner's slot is given back for it (the limiter's already is)."""
        if seconds <= 0:
            return
        lease = current_lease()
        if lease is not None:
            lease.give()
        await asyncio.sleep(seconds)  # cancelled: the lease stays given (its holder's exit releases nothing)
        if lease is not None:
            await lease.take()

    async def request(self, path: str, body: dict[str, Any]) -> Completion:
        """POST ``body`` with retries, backoff, the limiter and hedging; failures end as ``Completion.error``.

        Between attempts (backoff, ``Retry-After``) the request holds no slot, neither the limiter's nor the
        runner's; a ``Retry-After`` delays this request only, never the others."""
        last_reason = ""
        avoid: Replica | None = None
        stretch = 1.0
        refused = 0  # this request's refusals (429 / 529) so far
        t_start = time.monotonic()
        for attempt in range(self.opts.max_retries + 1):
            try:
                comp = await self._hedged(path, body, avoid, again=attempt > 0, stretch=stretch)
            except Retryable as e:
                last_reason = e.reason
                if isinstance(e, Abandoned):
                    stretch *= 2  # slower than anything seen so far, or hung: the next attempt waits twice as long
                if e.replica_down and e.replica is not None:
                    e.replica.down_until = time.monotonic() + self.opts.replica_cooldown_s
                    avoid = e.replica
                retry_after = None if e.retry_after is None else min(e.retry_after, self.opts.backoff_max_s)
                if e.overload:  # only a request refused again counts towards a decrease (sustained overload)
                    self.limiter.on_overload(e.sent_at, retry_after, repeat=refused > 0)
                    refused += 1
                if retry_after is not None:
                    delay = retry_after * (1.0 + 0.25 * self._rng.random())  # jitter, never sooner than asked
                else:
                    delay = min(self.opts.backoff_max_s, self.opts.backoff_base_s * 2 ** attempt)
                    delay *= 0.5 + self._rng.random()  # jitter
                if e.replica_down and len(self.replicas) > 1:
                    delay = 0.0  # another replica can take it now
            else:
                self.limiter.on_success()
                comp.latency_s = time.monotonic() - t_start
                return comp
            if attempt < self.opts.max_retries:
                await self._wait(delay)
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
