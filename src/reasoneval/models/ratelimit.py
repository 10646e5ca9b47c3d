"""Adaptive concurrency: additive increase, multiplicative decrease on 429 / overload, and recovery.

* A burst of 429s (every request that was in flight when the server got overloaded) halves the limit once,
  not once per 429: at most one decrease per ``decrease_gap_s``.
* Once no overload has been seen for ``recover_s``, the limit doubles back (at most once per ``recover_s``)
  towards its maximum, so a few 429s early in a run do not leave it crawling at concurrency 1.
* ``Retry-After`` pauses new acquisitions until then.
"""

from __future__ import annotations

import asyncio
import time


class AdaptiveLimiter:
    """A semaphore whose limit halves on overload and grows back on success."""

    def __init__(self, limit: int, minimum: int = 1, decrease_gap_s: float = 1.0, recover_s: float = 2.0) -> None:
        self.max_limit = max(1, limit)
        self.limit = float(self.max_limit)
        self.minimum = minimum
        self.decrease_gap_s = decrease_gap_s
        self.recover_s = recover_s
        self.in_flight = 0
        self.decreases = 0
        self._cond = asyncio.Condition()
        self._waiting = 0  # acquirers queued on the condition
        self._pause_until = 0.0
        self._last_decrease = -1e9
        self._last_overload = -1e9
        self._last_grow = -1e9

    async def acquire(self) -> None:
        if self._waiting or self.in_flight >= int(self.limit):  # wait in turn (one event loop: no race here)
            self._waiting += 1
            try:
                async with self._cond:
                    while self.in_flight >= int(self.limit):
                        await self._cond.wait()
                    self.in_flight += 1
            finally:
                self._waiting -= 1
        else:  # a free slot and nobody queued: no lock, no condition
            self.in_flight += 1
        delay = self._pause_until - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)

    async def release(self) -> None:
        self.in_flight -= 1
        if self._waiting:
            async with self._cond:
                self._cond.notify_all()

    def on_success(self) -> None:
        if self.limit >= self.max_limit:
            return
        now = time.monotonic()
        self.limit = min(self.max_limit, self.limit + 1.0 / max(self.limit, 1.0))
        if now - self._last_overload >= self.recover_s and now - self._last_grow >= self.recover_s:
            self.limit = min(float(self.max_limit), max(self.limit * 2, self.limit + 1))
            self._last_grow = now

    def on_overload(self, retry_after: float | None) -> None:
        now = time.monotonic()
        self._last_overload = now
        if now - self._last_decrease >= self.decrease_gap_s:
            self.limit = max(self.minimum, self.limit / 2)
            self._last_decrease = now
            self.decreases += 1
        if retry_after:
            self._pause_until = max(self._pause_until, now + retry_after)
