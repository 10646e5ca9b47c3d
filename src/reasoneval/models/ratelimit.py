"""Adaptive concurrency: additive increase, multiplicative decrease on 429 / overload."""

from __future__ import annotations

import asyncio
import time


class AdaptiveLimiter:
    """A semaphore whose limit halves on overload and creeps back up on success."""

    def __init__(self, limit: int, minimum: int = 1) -> None:
        self.max_limit = max(1, limit)
        self.limit = float(self.max_limit)
        self.minimum = minimum
        self.in_flight = 0
        self._cond = asyncio.Condition()
        self._pause_until = 0.0

    async def acquire(self) -> None:
        async with self._cond:
            while self.in_flight >= int(self.limit):
                await self._cond.wait()
            self.in_flight += 1
        delay = self._pause_until - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)

    async def release(self) -> None:
        async with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def on_success(self) -> None:
        if self.limit < self.max_limit:
            self.limit = min(self.max_limit, self.limit + 1.0 / max(self.limit, 1.0))

    def on_overload(self, retry_after: float | None) -> None:
        self.limit = max(self.minimum, self.limit / 2)
        if retry_after:
            self._pause_until = max(self._pause_until, time.monotonic() + retry_after)
