"""How far one copy of a request has got: when it was sent, its first and last body byte, its longest silence.

The scheduler (:mod:`.http`) watches these to tell a *slow* answer (bytes arriving, however slowly) from a
*silent* one (no byte for longer than answers usually take to start): only silence is hedged or abandoned.
The readers of a response body (:mod:`.limits`: :func:`~.limits.read_body`, :class:`~.limits.SSEReader`) call
:func:`touch` for every chunk they receive; the copy being read is found through a context variable, set by
the scheduler around each copy (each copy runs in its own task, or in the caller's), so the readers need no
extra argument and a backend that reads its body some other way simply reports no progress (its copies are
then judged by their send time alone, as before).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class CopyProgress:
    """One copy (one HTTP request sent) of an attempt."""

    sent: float  # monotonic time it was sent
    first_byte: float | None = None  # its first body byte (2xx bodies only; error bodies are not progress)
    last_byte: float | None = None
    max_gap: float = 0.0  # its longest silence between two body chunks
    chunks: int = 0  # body chunks received
    #: called once, at the first body byte (the scheduler cancels the other copy of a hedged attempt then)
    on_first_byte: Callable[[CopyProgress], None] | None = None

    def touch(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.chunks += 1
        if self.last_byte is None:
            self.first_byte = self.last_byte = now
            if self.on_first_byte is not None:
                self.on_first_byte(self)
            return
        self.max_gap = max(self.max_gap, now - self.last_byte)
        self.last_byte = now

    def last_sign(self) -> float:
        """When this copy last showed life: its last byte, or its sending."""
        return self.last_byte if self.last_byte is not None else self.sent


_CURRENT: ContextVar[CopyProgress | None] = ContextVar("reasoneval_copy_progress", default=None)


def current() -> CopyProgress | None:
    return _CURRENT.get()


def set_current(p: CopyProgress | None) -> object:
    """Make ``p`` the progress of the copy this task reads; returns the token for :func:`reset`."""
    return _CURRENT.set(p)


def reset(token: object) -> None:
    _CURRENT.reset(token)  # type: ignore[arg-type]


def touch() -> None:
    """A body chunk arrived for the copy this task reads (nothing when no copy is watched)."""
    p = _CURRENT.get()
    if p is not None:
        p.touch()
