"""The event loop of a process that owns its loop (:func:`run_owned`): uvloop where it is installed, else asyncio's.

Per request, the client's CPU is mostly aiohttp, the event loop and the socket calls under it; uvloop (libuv, in
C) does the loop's part for less (``bench/cpu_per_request.py``, docs/scaling.md). Only the CLI asks for it
(``reasoneval run``): the loop is made for that one ``run`` and closed after it; no event loop policy is set,
so a run started from the Python API or a training callback runs on its host's loop, untouched.

``REASONEVAL_EVENT_LOOP=asyncio`` keeps the standard loop (a comparison, or a platform where uvloop misbehaves);
without uvloop installed (Windows: it is not a dependency there) the standard loop is used silently.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: the environment variable that chooses the loop: ``uvloop`` (the default where installed) or ``asyncio``
ENV = "REASONEVAL_EVENT_LOOP"


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when it is importable and not turned off; None (asyncio's default) else."""
    if os.environ.get(ENV, "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: the loop :func:`run_owned` would use now."""
    return "asyncio" if loop_factory() is None else "uvloop"


def run_owned(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on :func:`loop_factory`'s loop: for a process that owns its event loop (the CLI)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coro)
