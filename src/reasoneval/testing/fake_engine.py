"""A stand-in for the embedded engine that can crash its own process (tests of engine isolation).

It answers every prompt with ``answer`` and, on the ``crash_at``-th request (1-based, counted across
restarts through a file), kills its process with ``signal`` (11 = SIGSEGV, 6 = SIGABRT, 9 = SIGKILL as
the OOM killer would). ``crash_every`` keeps crashing on every later request too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.values import Completion, GenParams, Prompt, Usage


class FakeEngine:
    def __init__(self, answer: str = "[[0]]", crash_at: int | None = None, signal: int = 11,
                 counter: str | None = None, crash_every: bool = False, fail_load: bool = False,
                 **_: Any) -> None:
        if fail_load:
            os.kill(os.getpid(), signal)
        self.answer, self.crash_at, self.sig, self.crash_every = answer, crash_at, signal, crash_every
        self.counter = Path(counter) if counter else None
        self.n = 0

    def _count(self) -> int:
        if self.counter is None:
            self.n += 1
            return self.n
        n = int(self.counter.read_text() or 0) + 1 if self.counter.exists() else 1
        self.counter.write_text(str(n))
        return n

    def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        n = self._count()
        if self.crash_at is not None and (n == self.crash_at or (self.crash_every and n > self.crash_at)):
            os.kill(os.getpid(), self.sig)
        text = self.answer
        return Completion(text=text, finish_reason="stop", usage=Usage(len(prompt.last_user_text()) // 4,
                                                                       len(text) // 4))
