"""Hedging: the first copy of a request runs in the caller's task; a second copy starts only past the hedge
delay, and whichever answers first is returned. The caller is never left cancelled by a copy that won, an outside
cancellation still cancels, and the limiter's slots always come back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reasoneval.core.values import Completion
from reasoneval.models.http_backend import HTTPBackend, HTTPOptions, Replica, Retryable


class Scripted(HTTPBackend):
    """``_on`` plays a script per attempt: (seconds to wait, text to answer or a Retryable to raise)."""

    def __init__(self, script: list[tuple[float, Any]], hedge_after_s: float = 0.2) -> None:
        super().__init__("fake", ["http://127.0.0.1:1/v1"], None, 4, HTTPOptions(hedge_after_s=hedge_after_s))
        self.script = list(script)
        self.started = 0

    async def _on(self, replica: Replica, path: str, body: dict[str, Any]) -> Completion:
        wait, what = self.script[self.started]
        self.started += 1
        await asyncio.sleep(wait)
        if isinstance(what, Exception):
            raise what
        return Completion(text=what)


def _run(b: Scripted) -> Completion:
    async def go() -> Completion:
        out = await b._hedged("/x", {}, None)
        await asyncio.sleep(0)  # let a cancelled copy finish
        return out

    return asyncio.run(go())


def test_an_early_answer_starts_no_second_copy() -> None:
    b = Scripted([(0.01, "first"), (0.0, "second")])
    assert _run(b).text == "first"
    assert b.started == 1 and b.hedges == 0 and b.limiter.in_flight == 0


def test_a_straggler_is_beaten_by_the_second_copy() -> None:
    b = Scripted([(30.0, "first"), (0.05, "second")])
    assert _run(b).text == "second"  # not a CancelledError: the copy's own cancellation became its answer
    assert b.hedges == 1 and b.limiter.in_flight == 0


def test_the_first_copy_can_still_win_after_the_hedge_started() -> None:
    b = Scripted([(0.3, "first"), (5.0, "second")])
    assert _run(b).text == "first"
    assert b.hedges == 1 and b.limiter.in_flight == 0


def test_a_failed_first_copy_waits_for_the_second() -> None:
    b = Scripted([(0.3, Retryable("HTTP 500")), (0.3, "second")])
    assert _run(b).text == "second"
    assert b.limiter.in_flight == 0


def test_both_copies_failing_raise_the_last_error() -> None:
    b = Scripted([(0.25, Retryable("one")), (0.2, Retryable("two"))])
    with pytest.raises(Retryable, match="two"):
        _run(b)
    assert b.limiter.in_flight == 0


def test_no_hedging_when_switched_off() -> None:
    b = Scripted([(0.3, "first"), (0.0, "second")], hedge_after_s=0)
    assert _run(b).text == "first" and b.hedges == 0 and b.started == 1


@pytest.mark.parametrize("when", [0.1, 0.3])  # before the hedge delay, and with both copies running
def test_an_outside_cancellation_cancels(when: float) -> None:
    b = Scripted([(30.0, "first"), (30.0, "second")])

    async def go() -> None:
        t = asyncio.create_task(b._hedged("/x", {}, None))
        await asyncio.sleep(when)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        await asyncio.sleep(0.01)

    asyncio.run(go())
    assert b.limiter.in_flight == 0
