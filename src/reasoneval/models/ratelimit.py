"""Request slots: a first-come first-served semaphore, the runner's lease on it, and adaptive concurrency.

* :class:`Slots`: a semaphore whose limit may change. A request that gave its slot back while it waited (a
  backoff, a ``Retry-After``, a hedged straggler) takes the next free one before requests not yet started, so
  half-done requests finish first; ``release`` is synchronous (a timer callback can give a slot back).
* :class:`Lease`: the runner's slot of one request (``async with Lease(slots)``), visible to the backend
  through :func:`current_lease`, so a backend that waits (backoff, ``Retry-After``, a straggler past the hedge
  delay) hands the runner's slot back for the wait instead of holding it.
* :class:`AdaptiveLimiter`: multiplicative decrease on 429 / overload, additive increase and recovery.
  A 429 does not pause the other requests (the one refused waits its own ``Retry-After``); the limit is
  lowered at most once per back-off window (``decrease_gap_s``, or the longest ``Retry-After`` seen in it), by
  the share of refused answers in that window (every answer refused: halved; 4 in 10: -40%), and not at all
  when under ``decrease_share`` (25%) were refused: a refused request waits without holding a slot, so a few
  refusals cost only their own waits, while a lower limit slows every request (20% random 429s with
  ``Retry-After: 1`` on 1,250 items, 0.5 s answers: 59 s at the limit's equilibrium of ~10 when every share
  counted). Only 429s of attempts sent after the last decrease count (those were sent under the old limit), and
  only *sustained* ones: a request's first refusal never counts (``on_overload(repeat=False)``), only the refusal
  of a request already refused once, so one-off 429s whose retry is answered never shrink the concurrency (the
  audit saw 16 -> 7-11 from them, 29.8 s against 18.1 s), while a server at capacity, which refuses the retries
  too, still brings the limit down. Once no overload has been seen for ``recover_s``, the limit doubles back (at
  most once per ``recover_s``).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any


class Slots:
    """A semaphore with a mutable ``limit``; waiters that gave a slot back (``again=True``) go first."""

    def __init__(self, limit: int) -> None:
        self.max_limit = max(1, limit)
        self.limit = float(self.max_limit)
        self.in_flight = 0
        self._new: deque[asyncio.Future[None]] = deque()
        self._again: deque[asyncio.Future[None]] = deque()

    def _room(self) -> bool:
        return self.in_flight < max(1, int(self.limit))

    @property
    def waiting(self) -> int:
        return sum(not f.done() for f in self._new) + sum(not f.done() for f in self._again)

    async def acquire(self, again: bool = False) -> None:
        if self._room() and not self._new and not self._again:  # a free slot and nobody queued
            self.in_flight += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        (self._again if again else self._new).append(fut)
        self._wake()
        try:
            await fut  # woken with the slot already counted as ours
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # the slot was handed over just as we were cancelled: pass it on
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        for q in (self._again, self._new):
            while q and self._room():
                fut = q.popleft()
                if not fut.done():
                    self.in_flight += 1
                    fut.set_result(None)


_LEASE: ContextVar[Lease | None] = ContextVar("reasoneval_request_lease", default=None)


def current_lease() -> Lease | None:
    """The runner's slot held by the request running in this task (None outside a runner)."""
    return _LEASE.get()


class Lease:
    """One request's slot of :class:`Slots`, which it can give back while it waits and take again after."""

    def __init__(self, slots: Slots) -> None:
        self.slots = slots
        self.held = False
        self._token: Token[Lease | None] | None = None

    async def __aenter__(self) -> Lease:
        await self.slots.acquire()
        self.held = True
        self._token = _LEASE.set(self)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._token is not None:
            _LEASE.reset(self._token)
            self._token = None
        self.give()

    def give(self) -> None:
        if self.held:
            self.held = False
            self.slots.release()

    async def take(self) -> None:
        if not self.held:
            await self.slots.acquire(again=True)
            self.held = True


class AdaptiveLimiter(Slots):
    """:class:`Slots` whose limit shrinks on overload and grows back on success."""

    def __init__(self, limit: int, minimum: int = 1, decrease_gap_s: float = 1.0, recover_s: float = 2.0,
                 decrease_share: float = 0.25, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(limit)
        self._now = clock
        self.minimum = minimum
        self.decrease_share = decrease_share
        self.decrease_gap_s = decrease_gap_s
        self.recover_s = recover_s
        self.decreases = 0
        self.first_refusals = 0  # refusals of requests not refused before: never counted towards a decrease
        self._last_decrease = -1e9
        self._last_overload = -1e9
        self._last_grow = -1e9
        # the open back-off window: opened by a refusal, decided by the first answer after it ends
        self._window_t0 = 0.0
        self._window_s = decrease_gap_s
        self._ok = 0  # answers in the open window
        self._refused = 0  # refusals in the open window (0: no window open)

    def on_success(self) -> None:
        now = self._now()
        if self._refused:
            self._ok += 1
            self._decide(now)
        if self.limit >= self.max_limit:
            return
        self.limit = min(self.max_limit, self.limit + 1.0 / max(self.limit, 1.0))
        if now - self._last_overload >= self.recover_s and now - self._last_grow >= self.recover_s:
            self.limit = min(float(self.max_limit), max(self.limit * 2, self.limit + 1))
            self._last_grow = now
        self._wake()

    def on_overload(self, sent_at: float | None = None, retry_after: float | None = None,
                    repeat: bool = True) -> bool:
        """A 429 to an attempt sent at ``sent_at`` (on the clock, monotonic); True when it lowered the limit.

        ``repeat``: the request was refused before (the backend says so). A request's *first* refusal never
        counts: it only waits its own ``Retry-After`` without a slot. One-off 429s (a quota blip, a proxy's
        random refusals: the retry is answered) thus never lower the limit, while sustained overload (a
        server at capacity refuses the retries too) still does."""
        now = self._now()
        self._last_overload = now
        if not repeat:
            self.first_refusals += 1
            return False
        if sent_at is not None and sent_at < self._last_decrease:
            return False  # sent under the old limit: part of the burst the last decrease answered
        if not self._refused:
            self._window_t0, self._window_s, self._ok = now, self.decrease_gap_s, 0
        self._refused += 1
        self._window_s = max(self._window_s, retry_after or 0.0)
        return self._decide(now)

    def _decide(self, now: float) -> bool:
        if not self._refused or now - self._window_t0 < self._window_s:
            return False
        share = self._refused / (self._refused + self._ok)
        self._ok = self._refused = 0
        if share < self.decrease_share:
            return False  # a few refusals cost only their own waits (no slot held): not worth everyone's speed
        self.limit = max(float(self.minimum), self.limit * max(0.5, 1.0 - share))
        self.decreases += 1
        self._last_decrease = now
        return True
