"""Progress display: done/total, throughput, ETA and error count on stderr."""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn


class RunProgress:
    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total, self.done, self.errors, self.cached = total, 0, 0, 0
        self.t0 = time.monotonic()
        self.enabled = enabled
        self._p: Progress | None = None
        self._task: TaskID | None = None
        if enabled:
            self._p = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TextColumn("{task.fields[rate]:.1f} it/s"), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("errors {task.fields[errors]}  cached {task.fields[cached]}"),
                console=Console(file=sys.stderr), transient=False, refresh_per_second=4)
            self._task = self._p.add_task(label, total=total, rate=0.0, errors=0, cached=0)

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
        if self._p is not None and self._task is not None:
            rate = self.done / max(time.monotonic() - self.t0, 1e-6)
            self._p.update(self._task, completed=self.done, rate=rate, errors=self.errors, cached=self.cached)
