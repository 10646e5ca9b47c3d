"""The event loop of a process that owns its loop (:func:`run_owned`): uvloop where it is installed, else asyncio's.

Per request, the client's CPU is mostly aiohttp, the event loop and the socket calls under it; uvloop (libuv, in
C) does the loop's part for less (``bench/cpu_per_request.py``, docs/scaling.md). Only the CLI asks for it
(``reasoneval run``): the loop is made for that one ``run`` and closed after it; no event loop policy is set,
so a run started from the Python API or a training callback runs on its host's loop, untouched.

``reasoneval run --event-loop asyncio`` keeps the standard loop (a comparison, or a platform where uvloop
misbehaves); without uvloop installed (Windows: it is not a dependency there) the standard loop is used silently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: the loops ``run --event-loop`` chooses from: ``uvloop`` (the default; asyncio's where uvloop is not installed)
LOOPS = ("uvloop", "asyncio")


def loop_factory(prefer: str = "uvloop") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when it is preferred and importable; None (asyncio's default) else."""
    if prefer not in LOOPS:
        raise ValueError(f"unknown event loop {prefer!r}: {' or '.join(LOOPS)}")
    if prefer == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def loop_name(prefer: str = "uvloop") -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run_owned` would use."""
    return "asyncio" if loop_factory(prefer) is None else "uvloop"


def run_owned(coro: Coroutine[Any, Any, T], prefer: str = "uvloop") -> T:
    """``asyncio.run(coro)`` on :func:`loop_factory`'s loop: for a process that owns its event loop (the CLI)."""
    with asyncio.Runner(loop_factory=loop_factory(prefer)) as runner:
        return runner.run(coro)
