"""The cyclic garbage collector while a run's requests are under way (:func:`quiet_gc`).

What was loaded before the run (modules, the benchmark's items and prompts: hundreds of thousands of objects)
cannot become garbage while it runs, yet every full collection walked it again; and each request allocates a few
hundred container objects (tasks, futures, response and row objects, nearly all freed by reference counting), so
the young generation's default threshold (700) collected every few requests. During the run the objects there
before are frozen out of the collections (``gc.freeze``) and the young generation is collected every
:data:`YOUNG_THRESHOLD` allocations; both are restored when the last run of the process ends. Measured with
``bench/cpu_per_request.py`` (docs/scaling.md).

The collector is the process's, so only a process that owns it asks for this: the CLI (``run_local(...,
quiet_gc=True)``); a run started from the Python API or a training callback leaves the host's collector alone.

:func:`paused` stops the collector for a while (the CLI's ``report``: its tables' rows are acyclic, a few objects
per answer, and the collections while they are made, then while the tables are drawn, walked them again and
again: 0.2-0.6 s of a 62-run report); what became cyclic garbage meanwhile is collected after.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

YOUNG_THRESHOLD = 20_000

_active = 0
_saved: tuple[int, int, int] | None = None
_lock = threading.Lock()


@contextlib.contextmanager
def quiet_gc(enabled: bool = True) -> Iterator[None]:
    global _active, _saved
    if not enabled:
        yield
        return
    with _lock:
        if _active == 0:
            _saved = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(max(_saved[0], YOUNG_THRESHOLD), _saved[1], _saved[2])
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                gc.unfreeze()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The cyclic collector off inside (as it was after)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
