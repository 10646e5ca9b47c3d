"""Progress display: done/total, throughput, ETA and error count on stderr.

The rate and the ETA are computed when the bar is drawn (4 times a second), from the answers of the last
``RATE_WINDOW_S`` seconds up to *now*: while requests hang and nothing completes the rate falls and the ETA
grows (or shows ``-:--:--``), instead of repeating the speed of the last burst (Rich's own ETA column keeps the
speed of its last samples while nothing advances: ``0.4 it/s ETA 0:00:01`` with 31 items hung). Items found
in the cache or reused from a stored run are not answers and do not count towards the rate.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

RATE_WINDOW_S = 30.0
BUCKET_S = 0.05  # answers this close together are counted as one entry: the history is bounded by time, not by the run
QUIET_S = 10.0  # past this without an answer, the bar says how long it has been


class _Live(ProgressColumn):
    """A column whose text is computed at every refresh (not only when the task is updated)."""

    def __init__(self, text: Callable[[], str]) -> None:
        super().__init__()
        self._text = text

    def render(self, task: Task) -> Text:
        return Text(self._text())


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class RunProgress:
    def __init__(self, total: int, label: str, enabled: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done, self.errors, self.cached = total, 0, 0, 0
        self._now = clock
        self.t0 = clock()
        #: (time, answers) of the last ``RATE_WINDOW_S`` s, answers within ``BUCKET_S`` of an entry's time added to it
        #: (cached or reused items are not answers): at most ``RATE_WINDOW_S / BUCKET_S`` entries, whatever the run
        self._recent: deque[list[float]] = deque()
        self._last: float | None = None  # when the last answer came
        self.enabled = enabled
        self._p: Progress | None = None
        self._task: TaskID | None = None
        if enabled:
            self._p = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.completed}/{task.total}"), _Live(self.status),
                TextColumn("errors {task.fields[errors]}  cached {task.fields[cached]}"),
                console=Console(file=sys.stderr), transient=False, refresh_per_second=4)
            self._task = self._p.add_task(label, total=total, errors=0, cached=0)

    def __enter__(self) -> RunProgress:
        if self._p:
            self._p.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._p:
            self._p.stop()

    def advance(self, error: bool = False, cached: bool = False, n: int = 1) -> None:
        self.done += n
        self.errors += int(error)
        self.cached += int(cached)
        if not cached:
            now = self._last = self._now()
            if self._recent and now - self._recent[-1][0] < BUCKET_S:
                self._recent[-1][1] += n
            else:
                self._recent.append([now, n])
                self._forget(now)
        if self._p is not None and self._task is not None:
            self._p.update(self._task, completed=self.done, errors=self.errors, cached=self.cached)

    def _forget(self, now: float) -> None:
        while self._recent and self._recent[0][0] < now - RATE_WINDOW_S:
            self._recent.popleft()

    def rate(self) -> float:
        """Answers per second over the last ``RATE_WINDOW_S`` s up to now (falls while nothing completes)."""
        now = self._now()
        span = min(RATE_WINDOW_S, now - self.t0)
        if span <= 0:
            return 0.0
        self._forget(now)
        return sum(n for t, n in self._recent if t >= now - span) / span

    def eta(self) -> float | None:
        """Seconds left at the current rate; None when nothing was answered lately (no honest estimate)."""
        left = self.total - self.done
        if left <= 0:
            return 0.0
        rate = self.rate()
        return left / rate if rate > 0 else None

    def status(self) -> str:
        eta = self.eta()
        text = f"{self.rate():.1f} it/s ETA {'-:--:--' if eta is None else _clock(eta)}"
        if self._last is not None and self.done < self.total:
            quiet = self._now() - self._last
            if quiet >= QUIET_S:
                text += f" (no answer for {_clock(quiet)})"
        return text
