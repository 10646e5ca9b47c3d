"""General365's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass

from reasoneval.core.options import BenchOptions


@dataclass(frozen=True)
class G365Options(BenchOptions):
    """``data``: the dataset folder or file; ``seed_pattern``: a regex with a named group ``seed`` telling
    seed items from their variants; ``mathverify_timeout``: seconds per rule comparison; ``revision``: the
    Hub release's branch, tag or commit (default: the pinned one; ignored with ``data``)."""

    seed_pattern: str | None = None
    revision: str | None = None
    mathverify_timeout: float = 5.0
