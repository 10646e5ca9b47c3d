"""What every HTTP model backend shares: one HTTP client, replicas, timeouts, retries, limiter, hedging.

A backend (OpenAI-compatible, Anthropic) subclasses :class:`HTTPBackend` and supplies only its headers and
``_read`` (one successful response -> :class:`Completion`); everything else is here, so no backend copies it.

Measured choice: requests go through :mod:`.wire`, a lean HTTP/1.1 client of this project (a keep-alive pool per
origin over ``asyncio.Protocol``, TLS, chunked and compressed bodies) that raises aiohttp's exception classes, so
the error mapping of ``_once`` reads the same for both; per request it spends a fraction of aiohttp's CPU
(``bench/cpu_per_request.py``, docs/scaling.md). httpx's AsyncClient stalls around 40-50 requests/s under
concurrency (encode/httpx#3215); aiohttp sustains >90% of ideal at 64 concurrent requests (bench/throughput.py)
and is still what lists a server's models (:mod:`.served`).

Reliability (docs/reliability.md, "Scheduling and timeouts"): connect / read / total timeouts per attempt
(:class:`HTTPOptions`); a request holds no slot (the limiter's nor the runner's) while it waits out a backoff
or a ``Retry-After``, which delays only that request; only *silence* is acted on (every body chunk is progress,
:mod:`.progress`): a request with no byte yet after the hedge delay gives its slots back and is raced by one
second copy (the first copy whose answer starts goes on, the other is cancelled; stragglers capped), and an
attempt silent for the abandonment window is cancelled and retried (both windows follow the observed p99 time to
first byte; an answer whose bytes keep coming is never abandoned); one extra request per call at most, and a
per-run cap on the extra requests that duplicated work (``max_extra_share``); the requests sent per call are
counted (:meth:`HTTPBackend.request_stats`); only sustained 429s lower the concurrency, at most once per
back-off window (:mod:`.ratelimit`);
retries back off with jitter; redirects are not followed; error strings are redacted of credentials and model
text is made storable (lone surrogates escaped). Reading a response: every 2xx body is judged by :mod:`.validate` (one rule
for streamed and plain responses) within the sizes of :mod:`.limits`; anything reading it raises is a retried
attempt (``_read_checked``); text a server sent reaches an error message only through
:func:`~reasoneval.core.safetext.server_text` (control codes stripped, redacted, then cut).
"""

from __future__ import annotations

import asyncio
import bisect
import json
import math
import random
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp

from ..core.safetext import redact, register_secret, server_text
from ..core.values import Completion
from . import progress, wire
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
    #: once an answer has started (a first body byte), it is abandoned only after a silence of the abandonment
    #: window or ``gap_multiple`` x the p99 of the longest pauses inside answered streams, whichever is longer
    gap_multiple: float = 8.0
    #: the per-run cap on extra requests (hedge copies and abandoned attempts sent again): this share of the
    #: run's items, rounded up, at least 1; 0: never hedge nor abandon (only the timeouts end an attempt)
    max_extra_share: float = 0.05
    #: extra requests one model call may spend over all its attempts (its hedge copy, or one abandoned attempt
    #: sent again): past it, only the timeouts end its attempts. A copy silent as long as its hedge copy is an
    #: answer slow for any replica, and sending it a third time wastes what the first two computed
    max_extra_per_call: int = 1
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


def missing_v1(url: str, path: str) -> str | None:
    """What to say when a request to ``url`` + ``path`` was answered 404 and neither names a ``/v1`` route (a base
    URL given without it: every request would be a 404). Raised as a ``ModelError``, it stops the run at the
    first one rather than recording each item as a failure."""
    if "/v1" in url + path:
        return None
    fixed = url.rstrip("/") + "/v1"
    return (f"did you mean {fixed}? OpenAI-compatible servers answer under /v1 (--model ...@{fixed}); "
            "the run stopped at this first 404")


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


async def sse_events(resp: wire.Response, limits: ResponseLimits | None = None) -> Any:
    """The ``data:`` payloads of a server-sent-events response as JSON objects (``[DONE]`` ends it), within
    ``limits``; :class:`~.limits.SSEReader` also tells whether ``[DONE]`` came."""
    async for event in SSEReader(resp, limits or ResponseLimits()):
        yield event


#: how much of an error (4xx / 3xx) body is read: its first characters go into the item's error message
ERROR_BODY_BYTES = 64 * 1024
ERROR_SNIPPET_CHARS = 300


class RequestBody(dict[str, Any]):
    """A request's JSON body with its encoding made once (``data``: UTF-8 JSON bytes, sent as they are, with the
    session's ``Content-Type: application/json``): every copy and attempt of the request sends the same bytes,
    and a backend may build them from parts it encoded before (the same prompt for every sample)."""

    __slots__ = ("data",)

    def __init__(self, body: dict[str, Any], data: bytes) -> None:
        super().__init__(body)
        self.data = data


class Abandoned(Retryable):
    """An attempt no copy answered within the abandonment window (cancelled, retried with wider windows)."""


@dataclass(slots=True)
class _Tally:
    """One request (model call) across its attempts: copies sent, whether it was hedged."""

    sent: int = 0
    hedged: bool = False  # a request is hedged once at most (one extra copy), whatever its attempts
    extra: int = 0  # its hedge copy and abandoned attempts (at most ``max_extra_per_call``)
    waited: float | None = None  # how long its last abandoned attempt had waited (None: none pending a refund)
    ttfb: float | None = None  # the time to first byte of its latest attempt's answer (None: not watched)


@dataclass(eq=False, slots=True)  # (hashed by identity: the attempts waiting at the cap are a set)
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
    timer: asyncio.Handle | None = None
    tally: _Tally = field(default_factory=_Tally)
    first_p: progress.CopyProgress | None = None  # the first copy's bytes
    copy_p: progress.CopyProgress | None = None  # the second copy's bytes (once sent)
    switched: bool = False  # the second copy's answer started first: the first copy was cancelled for it
    denied: bool = False  # a hedge or abandonment of this attempt was refused at the extra-request cap
    dropped: asyncio.Task[Completion] | None = None  # the second copy, cancelled: the first copy's answer started


class HTTPBackend:
    """Base of the HTTP backends. Subclasses set ``spec`` and implement ``_headers`` and ``_read``."""

    batched = False
    supports_images = True

    def __init__(self, spec: str, base_urls: list[str], api_key: str | None, concurrency: int = 32,
                 options: HTTPOptions | None = None) -> None:
        if not base_urls:
            raise ModelError(f"{spec}: no base URL")
        self.spec = spec
        self.replicas = [Replica(url.rstrip("/")) for url in base_urls]
        self.api_key = api_key
        register_secret(api_key)
        self.max_concurrency = concurrency
        self.opts = options or HTTPOptions()
        self.limiter = AdaptiveLimiter(concurrency)
        self._client: wire.Client | None = None
        self._rng = random.Random()
        self._latencies: deque[float] = deque(maxlen=256)  # times to first byte of copies (see ``_p99``)
        self._latency_count = 0  # samples recorded so far
        self._p99_cache: tuple[int, float] | None = None  # (count when computed, p99 time to first byte)
        self._gaps: deque[float] = deque(maxlen=256)  # the longest pause inside each answered stream
        self._gaps_sorted: list[float] = []  # the same, sorted (``_p99_gap``)
        self.hedges = 0  # second copies sent
        self.abandoned = 0  # attempts abandoned (silent past the window) and retried
        self.stragglers = 0  # copies in flight that gave their slots back
        self.planned = 0  # units of the run (the runner says: ``plan_requests``)
        self.calls = 0  # requests (model calls) begun
        self.copies_sent = 0  # HTTP requests sent (copies), all attempts
        self.retries = 0  # attempts after a request's first (after an error, a refusal or an abandonment)
        self.extras = 0  # hedge copies started + abandoned attempts sent again
        #: extras counted against ``extra_cap``: all of them, less those that paid off (see ``extra_cap``)
        self.extra_charged = 0
        self.extra_denied = 0  # attempts not hedged or abandoned because the cap was reached
        self._at_cap: set[_Race] = set()  # attempts due an extra request, waiting for the cap to allow it
        self.sent_per_call: Counter[int] = Counter()  # copies sent by a model call -> calls

    # ---- what a backend supplies
    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json"}

    async def _read(self, resp: wire.Response, replica: Replica, t0: float,
                    body: dict[str, Any]) -> Completion:
        """One successful (2xx) response as a Completion; one that is not an answer raises
        :class:`~.validate.ResponseRejected` (see :mod:`.validate` for the rule, :mod:`.limits` for the sizes)."""
        raise NotImplementedError

    async def _read_checked(self, resp: wire.Response, replica: Replica, t0: float,
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
    def _get_client(self) -> wire.Client:
        if self._client is None or self._client.closed:
            opts = self.opts
            # no read timeout unless one is asked for: a read silent for the total time can only come after the
            # total timeout (which starts earlier)
            self._client = wire.Client(self._headers(), opts.timeout_s, opts.connect_timeout_s, opts.read_timeout_s)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and not self._client.closed:
            await self._client.close()

    def _pick(self, avoid: Replica | None) -> Replica:
        if len(self.replicas) == 1:
            return self.replicas[0]
        now = time.monotonic()
        healthy = [replica for replica in self.replicas if replica.healthy(now)] or self.replicas
        if avoid is not None and len(healthy) > 1:
            healthy = [replica for replica in healthy if replica is not avoid] or healthy
        least = min(replica.outstanding for replica in healthy)
        return self._rng.choice([replica for replica in healthy if replica.outstanding == least])

    async def _once(self, replica: Replica, path: str, body: dict[str, Any]) -> Completion:
        client = self._client if self._client is not None and not self._client.closed else self._get_client()
        t0 = time.monotonic()
        try:
            data = body.data if isinstance(body, RequestBody) else json.dumps(body).encode()
            async with client.post(replica.url + path, data) as resp:  # (redirects are never followed)
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
                    if resp.status == 404 and (hint := missing_v1(replica.url, path)):
                        raise ModelError(redact(f"HTTP 404 from {replica.url}{path}: {snippet}; {hint}"))
                    return Completion(error=f"HTTP {resp.status} from {replica.url}: {snippet}",
                                      latency_s=time.monotonic() - t0)
                return await self._read_checked(resp, replica, t0, body)
        except TimeoutError as e:  # the connect/read timeouts (aiohttp's classes) are TimeoutErrors too
            opts = self.opts
            kind = ("connect" if "connect" in e.__class__.__name__.lower() else "read" if isinstance(
                e, aiohttp.ClientError) else "total")
            limit = {"connect": opts.connect_timeout_s, "read": opts.read_timeout_s or opts.timeout_s,
                     "total": opts.timeout_s}[kind]
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
        """The p99 time to first byte of the last 256 copies that got one (None until :meth:`min_samples`),
        re-sorted every 32. A copy whose body came at once (a plain answer) has its whole latency there."""
        n = len(self._latencies)
        if n < self.min_samples():
            return None
        if self._p99_cache is None or self._latency_count - self._p99_cache[0] >= 32:
            lat = sorted(self._latencies)
            self._p99_cache = (self._latency_count, lat[int(0.99 * (n - 1))])
        return self._p99_cache[1]

    def _p99_gap(self) -> float | None:
        """The p99 of the longest silence inside each answered stream (None until :meth:`min_samples`); the
        gaps are also kept sorted as they come (``_add_gap``), so no call sorts them."""
        n = len(self._gaps)
        if n < self.min_samples():
            return None
        return self._gaps_sorted[int(0.99 * (n - 1))]

    def _add_gap(self, gap: float) -> None:
        if len(self._gaps) == self._gaps.maxlen:  # the oldest leaves the window: out of the sorted copy too
            del self._gaps_sorted[bisect.bisect_left(self._gaps_sorted, self._gaps[0])]
        self._gaps.append(gap)
        bisect.insort(self._gaps_sorted, gap)

    def _base_windows(self) -> tuple[float | None, float | None, float | None]:
        """:meth:`hedge_delay`, :meth:`abandon_after` and :meth:`stream_silence_after` at once (the same values,
        from one look at the p99: every request's timer asks for the three)."""
        opts = self.opts
        p99 = self._p99() if opts.hedge_after_s is None or opts.abandon_after_s is None else None
        if opts.hedge_after_s is not None:
            hedge = opts.hedge_after_s or None
        else:
            hedge = (None if p99 is None
                     else min(opts.hedge_max_s, max(opts.hedge_min_s, opts.hedge_multiple * p99)))
        if opts.abandon_after_s is not None:
            abandon = opts.abandon_after_s or None
        else:
            abandon = (None if p99 is None
                       else min(opts.timeout_s, max(2 * opts.hedge_min_s, opts.abandon_multiple * p99)))
        if abandon is None:
            return hedge, None, None
        gap = self._p99_gap()
        return hedge, abandon, (abandon if gap is None
                                else min(opts.timeout_s, max(abandon, opts.gap_multiple * gap)))

    def hedge_delay(self) -> float | None:
        """Seconds after which a copy with no byte yet gives its slots back and a second copy is sent (None:
        never)."""
        opts = self.opts
        if opts.hedge_after_s is not None:
            return opts.hedge_after_s or None
        p99 = self._p99()
        if p99 is None:
            return None  # nothing known yet: no hedge (the attempt is looked at again every second)
        return min(opts.hedge_max_s, max(opts.hedge_min_s, opts.hedge_multiple * p99))

    def abandon_after(self) -> float | None:
        """Seconds of silence (no byte, from any copy of the attempt) after which it is abandoned (None: never)."""
        opts = self.opts
        if opts.abandon_after_s is not None:
            return opts.abandon_after_s or None
        p99 = self._p99()
        if p99 is None:
            return None  # nothing known yet: the timeouts alone (the attempt is looked at again every second)
        return min(opts.timeout_s, max(2 * opts.hedge_min_s, opts.abandon_multiple * p99))

    def stream_silence_after(self) -> float | None:
        """Seconds of silence after which an attempt whose answer has *started* is abandoned: the abandonment
        window, or ``gap_multiple`` x the p99 of the longest silences inside answered streams, whichever is
        longer (a streaming answer may pause as long as an answer may take to start: a server preempting it)."""
        base = self.abandon_after()
        if base is None:
            return None
        gap = self._p99_gap()
        return base if gap is None else min(self.opts.timeout_s, max(base, self.opts.gap_multiple * gap))

    def min_samples(self) -> int:
        """Answers before the adaptive windows follow the p99: two rounds of the concurrency (at least 20, at
        most 100). The first answers of a run are its fastest (the slow ones of the first round are still
        running), so a p99 of fewer answers would be too short."""
        return min(100, max(20, 2 * self.max_concurrency))

    def _windows_settled(self) -> bool:
        opts = self.opts
        return (opts.hedge_after_s is not None and opts.abandon_after_s is not None) or self._p99() is not None

    # ---- the per-run cap on extra requests
    def plan_requests(self, n: int) -> None:
        """The runner says how many units (items x samples) the run has: the extra-request cap is a share of it."""
        self.planned = max(self.planned, n)

    def extra_cap(self) -> int:
        """Extra requests (hedge copies, abandoned attempts re-sent) this run may have *charged* at once:
        ``max_extra_share`` of its items (or of the requests begun, when more), rounded up, at least 1; 0 when the
        share is 0. An extra is charged when sent and refunded when it pays off (:meth:`_refund`): so the cap
        bounds the extra requests that duplicated work (a slow answer sent twice), while stuck requests (hung
        connections: their copy answers at once) are still rescued however many there are."""
        share = self.opts.max_extra_share
        if share <= 0:
            return 0
        return max(1, math.ceil(share * max(self.planned, self.calls)))

    def _may_extra(self, race: _Race) -> bool:
        return self.extra_charged < self.extra_cap() and race.tally.extra < self.opts.max_extra_per_call

    def _refund(self) -> None:
        """An extra request paid off: it started answering sooner than the copy it replaced had waited (a hedge
        copy that won, an abandoned attempt whose retry answered within that time). The copy it replaced was
        stuck (a hung connection, a lost request), not computing a slow answer: no waste to count."""
        self.extra_charged -= 1
        for race in list(self._at_cap):  # a denied attempt may go ahead now
            self._at_cap.discard(race)
            if race.timer is not None:
                race.timer.cancel()
            race.timer = asyncio.get_running_loop().call_soon(self._tick, race)

    def request_stats(self) -> dict[str, Any]:
        """What the run sent: HTTP requests per model call, hedges, abandonments, retries, the extra-request cap."""
        calls = sum(self.sent_per_call.values())
        return {"calls": calls, "sent": self.copies_sent, "per_call": round(self.copies_sent / calls, 3) if calls else None,
                "most_per_call": max(self.sent_per_call, default=0),
                "histogram": {str(sent): n_calls for sent, n_calls in sorted(self.sent_per_call.items())},
                "hedges": self.hedges, "abandoned": self.abandoned, "retries": self.retries,
                "extra": self.extras, "extra_charged": self.extra_charged, "extra_cap": self.extra_cap(),
                "extra_denied": self.extra_denied,
                "max_extra_share": self.opts.max_extra_share}

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
        if comp.error is None:
            watched = progress.current()
            # no byte was watched: its whole latency is its first byte
            if watched is None or watched.first_byte is None:
                self._sample(now - t0)
            elif watched.chunks > 1:
                self._add_gap(watched.max_gap)
        return comp

    def _sample(self, ttfb: float) -> None:
        """A copy's own time to first byte: never the time a hedged request waited."""
        self._latencies.append(ttfb)
        self._latency_count += 1

    def _watch(self, race: _Race, sent: float) -> progress.CopyProgress:
        watched = progress.CopyProgress(sent)
        watched.on_first_byte = lambda copy: self._first_byte(race, copy)
        return watched

    def _first_byte(self, race: _Race, watched: progress.CopyProgress) -> None:
        """A copy's first body byte: its answer has started. Hedging is over for this attempt: the other copy,
        if one runs, is cancelled (whichever started first goes on alone)."""
        assert watched.first_byte is not None
        self._sample(watched.first_byte - watched.sent)
        if race.tally.ttfb is None:
            race.tally.ttfb = watched.first_byte - race.t0
        if race.over or race.won:
            return
        if watched is race.first_p and race.copy is not None and not race.copy.done():
            race.dropped, race.copy = race.copy, None  # the first copy answers: the hedge copy is not needed
            race.dropped.cancel()
            if race.held and race.straggling:  # the dropped copy's slots now carry the first copy
                race.straggling = False
                self.stragglers -= 1
        elif watched is race.copy_p and race.first_running and race.me is not None:
            race.switched = True  # the copy answers: the first copy is cancelled, the caller awaits the copy
            race.me.cancel()
            self._refund()  # (the first copy had waited longer, and was still silent)

    async def _hedged(self, path: str, body: dict[str, Any], avoid: Replica | None, again: bool = False,
                      stretch: float = 1.0, tally: _Tally | None = None) -> Completion:
        """One attempt. While no copy has a byte, past the hedge delay it gives its slots back and one second
        copy races it; the first copy with a byte goes on alone (the other is cancelled). Past the silence window
        (no byte from any copy) it is cancelled and raises :class:`Abandoned`. Hedging and abandoning each spend
        one of the run's extra requests (:meth:`extra_cap`); with none left the attempt just waits (its timeouts
        still apply).

        The first copy runs in the caller's own task (no task per request); a timer (:meth:`_tick`) starts the
        second copy as a task only when the first is still silent at the hedge delay. If the second copy
        answers (or starts answering) first it cancels the first copy's await, and that cancellation (only that
        one) is turned into its answer; an abandonment's cancellation is turned into a :class:`Retryable`.
        ``again``: a retry, which takes a free limiter slot before requests not yet started; ``stretch``: the
        windows' factor (an answer slower than everything seen so far gets more time at each retry);
        ``tally``: the request's count of copies sent (a request hedges once at most)."""
        await self.limiter.acquire(again=again)
        caller = asyncio.current_task()
        race = _Race(time.monotonic(), self._pick(avoid), path, body, caller, current_lease(), stretch=stretch,
                     tally=tally or _Tally())
        race.first_p = self._watch(race, race.t0)
        race.tally.sent += 1
        self.copies_sent += 1
        token = progress.set_current(race.first_p)
        race.first_running = True  # (nothing awaits before the first copy's await: the timer cannot fire sooner)
        if caller is not None:
            self._arm(race, self._next_check(race, race.t0))
        try:
            try:
                try:
                    return await self._on(race.first, path, body)
                finally:  # the first copy is over (answered, failed or cancelled)
                    race.first_running = False
                    if race.straggling:
                        race.straggling = False
                        self.stragglers -= 1
            except asyncio.CancelledError:
                if ((race.won or race.abandoned or race.switched) and caller is not None
                        and caller.uncancel() == 0):
                    if race.abandoned:  # (not from outside)
                        raise self._abandonment(race) from None
                    if race.won:
                        assert race.answer is not None
                        return race.answer
                    return await self._await_copy(race, caller)
                raise
            except Retryable:
                if race.copy is None:
                    raise
                # the copy may still answer (or its error is the last)
                return await self._await_copy(race, caller)
        finally:
            progress.reset(token)
            race.over = True
            self._at_cap.discard(race)
            if race.timer is not None:
                race.timer.cancel()
            for task in (race.copy, race.dropped):
                if task is None:
                    continue
                if not task.done():
                    task.cancel()
                elif not task.cancelled():
                    task.exception()  # retrieved: a lost race is not an unhandled error
            if race.held:
                self.limiter.release()

    async def _await_copy(self, race: _Race, caller: asyncio.Task[Any] | None) -> Completion:
        assert race.copy is not None
        try:
            return await race.copy
        except asyncio.CancelledError:
            if race.abandoned and caller is not None and not caller.cancelling():
                raise self._abandonment(race) from None
            raise

    def _abandonment(self, race: _Race) -> Abandoned:
        e = Abandoned(race.abandoned or "abandoned")
        e.sent_at = race.t0
        return e

    def _live(self, race: _Race) -> list[progress.CopyProgress]:
        """The copies of ``race`` sent and still running."""
        out = []
        if race.first_running and race.first_p is not None:
            out.append(race.first_p)
        if race.copy is not None and not race.copy.done() and race.copy_p is not None:
            out.append(race.copy_p)
        return out

    def _next_check(self, race: _Race, now: float) -> float | None:
        """Seconds until ``race`` must be looked at again (hedge or abandon), None: never."""
        if race.copy is not None and race.t_copy is None:
            return None  # the copy waits for its slots; it arms the timer once it is sent
        live = self._live(race)
        if not live or race.tally.extra >= self.opts.max_extra_per_call:
            return None  # nothing to watch, or this call's extra requests are spent: only the timeouts apply
        hedge, abandon, streaming = self._windows(race)
        started = any(watched.first_byte is not None for watched in live)
        window = streaming if started else abandon
        waits = []
        if window is not None:
            waits.append(window - (now - max(watched.last_sign() for watched in live)))
        if hedge is not None and race.copy is None and not started and not race.tally.hedged:
            waits.append(hedge - (now - race.t0))
        wait = min(waits) if waits else None
        if not self._windows_settled():  # the windows will follow the p99 once it is known: look again soon
            wait = UNSURE_CHECK_S if wait is None else min(wait, UNSURE_CHECK_S)
        return wait

    def _arm(self, race: _Race, wait: float | None) -> None:
        if wait is not None:
            race.timer = asyncio.get_running_loop().call_later(max(wait, 0.0), self._tick, race)

    def _tick(self, race: _Race) -> None:
        """The attempt's timer: hedge, abandon, or look again later. Only silence counts: an attempt whose copy
        receives bytes is never abandoned, and one whose answer has started is never hedged."""
        race.timer = None
        self._at_cap.discard(race)
        if race.over or race.won:
            return
        now = time.monotonic()
        live = self._live(race)
        if not live:
            return
        hedge, abandon, streaming = self._windows(race)
        started = any(watched.first_byte is not None for watched in live)
        window = streaming if started else abandon
        silence = now - max(watched.last_sign() for watched in live)
        due = window is not None and silence >= window
        hedge_due = (hedge is not None and race.copy is None and not started and not race.tally.hedged
                     and now - race.t0 >= hedge and race.first_running)
        if (due or hedge_due) and race.tally.extra < self.opts.max_extra_per_call:
            if not self._may_extra(race):  # the run's cap: wait for an extra to pay off (or the timeouts)
                self._deny(race)
                return self._arm(race, UNSURE_CHECK_S)
            if due:
                return self._abandon(race, window or 0.0, started, now)
            cap = self.opts.max_stragglers if self.opts.max_stragglers is not None else self.max_concurrency
            if self.stragglers < cap:
                return self._start_copy(race)
            return self._arm(race, UNSURE_CHECK_S)  # too many stragglers: hedge later
        self._arm(race, self._next_check(race, now))

    def _deny(self, race: _Race) -> None:
        """``race`` is due a hedge or an abandonment, but the run's extra requests are all charged: it is looked
        at again every second, and at once when an extra request pays off (:meth:`_refund`)."""
        self._at_cap.add(race)
        if not race.denied:  # counted once per attempt
            race.denied = True
            self.extra_denied += 1

    def _windows(self, race: _Race) -> tuple[float | None, float | None, float | None]:
        """The hedge delay, the silence window before and after the answer started (stretched after abandoned
        attempts)."""
        hedge, abandon, streaming = self._base_windows()
        cap = self.opts.timeout_s
        if race.stretch != 1.0:
            hedge, abandon, streaming = (
                None if hedge is None else min(self.opts.hedge_max_s, hedge * race.stretch),
                None if abandon is None else min(cap, abandon * race.stretch),
                None if streaming is None else min(cap, streaming * race.stretch))
        # a silence window as long as the total timeout cannot end an attempt sooner than that timeout does: the
        # timeout ends it (an abandonment armed for the same instant would race it, and win or lose by microseconds)
        if abandon is not None and abandon >= cap:
            abandon = None
        if streaming is not None and streaming >= cap:
            streaming = None
        return hedge, abandon, streaming

    def _abandon(self, race: _Race, after: float, started: bool, now: float) -> None:
        opts = self.opts
        p99 = self._p99()
        how = ("--abandon-after" if opts.abandon_after_s is not None or p99 is None else
               f"{opts.abandon_multiple:g} x the p99 time to first byte {p99:.3g}s of the answers so far, at least "
               f"{2 * opts.hedge_min_s:g}s")
        if started:
            how += ", or the longest pauses inside answers"
        if race.stretch > 1:
            how += f", x{race.stretch:g} after earlier abandoned attempts"
        what = "no byte of the answer for" if started else "no answer within"
        race.abandoned = f"{what} {after:.3g}s ({how}): abandoned"
        self.abandoned += 1
        self.extras += 1  # the attempt will be sent again
        self.extra_charged += 1
        race.tally.extra += 1
        race.tally.waited = now - race.t0  # refunded if the retry starts answering sooner (``_attempts``)
        if race.copy is not None and not race.copy.done():
            race.copy.cancel()
        if race.first_running and race.me is not None:
            race.me.cancel()

    def _start_copy(self, race: _Race) -> None:
        """The hedge: the first copy gives its slots back (a straggler must not starve the other requests)
        and keeps listening; a second copy is sent once it holds slots of its own."""
        race.tally.hedged = True
        race.tally.extra += 1
        self.extras += 1
        self.extra_charged += 1  # refunded if the copy wins (``_copy``, ``_first_byte``)
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
        race.copy_p = self._watch(race, race.t_copy)
        progress.set_current(race.copy_p)  # this task's own context
        race.tally.sent += 1
        self.copies_sent += 1
        if race.timer is not None:
            race.timer.cancel()
        self._arm(race, self._next_check(race, race.t_copy))
        comp = await self._on(self._pick(race.first), race.path, race.body)
        if race.first_running and race.me is not None and not race.switched:
            race.won, race.answer = True, comp
            race.me.cancel()
            self._refund()  # the copy answered while the first copy, sent earlier, had not
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
        runner's; a ``Retry-After`` delays this request only, never the others. The copies it sent are counted
        (``request_stats``)."""
        t_start = time.monotonic()
        tally = _Tally()
        self.calls += 1
        try:
            return await self._attempts(path, body, tally, t_start)
        finally:
            self.sent_per_call[tally.sent] += 1

    async def _attempts(self, path: str, body: dict[str, Any], tally: _Tally, t_start: float) -> Completion:
        last_reason = ""
        avoid: Replica | None = None
        stretch = 1.0
        refused = 0  # this request's refusals (429 / 529) so far
        for attempt in range(self.opts.max_retries + 1):
            if attempt:
                self.retries += 1
            t_attempt = time.monotonic()
            tally.ttfb = None
            try:
                comp = await self._hedged(path, body, avoid, again=attempt > 0, stretch=stretch, tally=tally)
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
                if tally.waited is not None:  # the retry of an abandoned attempt answered: did it pay off?
                    started = tally.ttfb if tally.ttfb is not None else time.monotonic() - t_attempt
                    if started < tally.waited:
                        self._refund()
                comp.latency_s = time.monotonic() - t_start
                return comp
            if attempt < self.opts.max_retries:
                await self._wait(delay)
        return Completion(error=redact(f"gave up after {self.opts.max_retries + 1} attempts: {last_reason}"),
                          latency_s=time.monotonic() - t_start)

    def replica_stats(self) -> list[dict[str, Any]]:
        out = []
        for replica in self.replicas:
            span = (replica.last_t - replica.first_t) if replica.done else 0.0
            out.append({"url": replica.url, "done": replica.done, "failures": replica.failures,
                        "throughput_rps": round(replica.done / span, 2) if span > 0 else None})
        return out


def stream_rejected(comp: Completion) -> bool:
    """A 4xx answer that names ``stream``: the server does not stream; ask again without it."""
    error = comp.error or ""
    return (error.startswith(("HTTP 400", "HTTP 404", "HTTP 415", "HTTP 422", "HTTP 501"))
            and "stream" in error.lower())
