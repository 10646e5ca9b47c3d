"""R-Bench's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass

from reasoneval.core.options import BenchOptions


@dataclass(frozen=True)
class RBenchOptions(BenchOptions):
    """``data``: the dataset root (or one file); ``revision``: the Hub release's branch, tag or commit
    (default: the pinned one; ignored with ``data``)."""

    revision: str | None = None
