"""Progress bars of long CLI steps (state generation, sweeps) on stderr; off when stderr is not a terminal.

The engine takes a plain callback ``progress(done, total)``; only a command makes a bar of it, so nothing is
drawn when the same code runs from the Python API, a pipe or a log file.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Tick = Callable[[int, int], None]


@contextmanager
def bars(*labels: str, enabled: bool | None = None) -> Iterator[list[Tick | None]]:
    """One ``progress(done, total)`` callback per label, each drawing its bar on stderr (one display), or Nones
    (nothing to call) when disabled; ``enabled`` None: when stderr is a terminal."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield [None for _ in labels]
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("eta"), TimeRemainingColumn(), console=Console(stderr=True)) as p:
        ticks: list[Tick | None] = []
        for label in labels:
            task = p.add_task(label, total=None)

            def update(done: int, total: int, task: int = task) -> None:
                p.update(task, completed=done, total=total)  # type: ignore[arg-type]

            ticks.append(update)
        yield ticks
