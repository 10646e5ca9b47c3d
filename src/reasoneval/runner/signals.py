"""SIGTERM (and SIGHUP) stop a run the way Ctrl-C does.

What is done stays committed, the run is marked ``interrupted`` and the command says how to resume it. The
first signal cancels the run's main task (the engine's cleanup commits what its writer holds and marks the
run), exactly what asyncio does for SIGINT; a second one, or one outside the event loop (the Ray executor),
raises ``KeyboardInterrupt`` in the main thread. This works also where SIGINT is ignored (a background job
of a shell script). A signal the parent process chose to ignore stays ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Coroutine
from types import FrameType, TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

#: the signals that stop a run like Ctrl-C
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Termination:
    """``with Termination() as term: asyncio.run(term.guard(main()))``; ``term.signum`` is the signal that
    stopped it (None when none did)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._task: asyncio.Task[Any] | None = None
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else "SIGINT"

    @property
    def exit_code(self) -> int:
        """128 + the signal number, the shell's convention (130 for Ctrl-C)."""
        return 128 + (self.signum if self.signum is not None else signal.SIGINT)

    async def guard(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` as the task a stop signal cancels."""
        self._task = asyncio.current_task()
        try:
            return await coro
        finally:
            self._task = None

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        first = self.signum is None
        self.signum = signum
        task = self._task
        if first and task is not None and not task.done():
            task.cancel()
            task.get_loop().call_soon_threadsafe(lambda: None)  # wake the loop if it waits in select()
            return
        raise KeyboardInterrupt

    def __enter__(self) -> Termination:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                if signal.getsignal(sig) == signal.SIG_DFL:
                    self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(sig, handler)
        self._previous.clear()
