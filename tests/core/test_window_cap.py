"""A silence window as long as the total timeout is left to the timeout: an abandonment armed for the same instant
raced it (whichever timer the loop ran first won), so an attempt the timeout ends read as ``abandoned`` or as a
``total timeout`` by microseconds (seen once the client answered fast enough for the p99 to settle early:
``test_faults.py::test_timeouts_are_configurable`` failed 4 times in 12)."""

from __future__ import annotations

import time

from reasoneval.models.http_backend import HTTPOptions, _Race
from reasoneval.models.openai_compat import OpenAICompatBackend


def _backend(timeout_s: float) -> OpenAICompatBackend:
    b = OpenAICompatBackend("openai-compat/m@http://127.0.0.1:9", "m", ["http://127.0.0.1:9"], None, concurrency=8,
                            options=HTTPOptions(timeout_s=timeout_s, hedge_after_s=0))
    for _ in range(b.min_samples()):
        b._sample(0.2)  # p99 0.2 s: abandonment window max(2 x hedge_min_s, 8 x 0.2) = 2 s, at most the timeout
    return b


def _race(b: OpenAICompatBackend, stretch: float = 1.0) -> _Race:
    race = _Race(time.monotonic(), b.replicas[0], "/chat/completions", {}, None, None, stretch=stretch)
    race.first_p = b._watch(race, race.t0)
    race.first_running = True  # its first copy is waiting for an answer
    return race


def test_a_window_clamped_to_the_total_timeout_is_left_to_the_timeout() -> None:
    b = _backend(timeout_s=0.5)
    assert b.abandon_after() == 0.5  # the definition is unchanged (clamped to the timeout)...
    assert b._windows(_race(b)) == (None, None, None)  # ...but no abandonment races the timeout at that instant
    race = _race(b)
    assert b._next_check(race, race.t0) is None  # no timer: the total timeout alone ends it


def test_windows_shorter_than_the_timeout_still_abandon_and_a_stretched_one_reaching_it_does_not() -> None:
    b = _backend(timeout_s=3.0)
    assert b._windows(_race(b)) == (None, 2.0, 2.0)
    race = _race(b)
    assert 1.9 < (b._next_check(race, race.t0) or 0) <= 2.0
    assert b._windows(_race(b, stretch=2.0)) == (None, None, None)  # 4 s, clamped to 3 s: the timeout's
