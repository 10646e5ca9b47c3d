"""MATH's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.options import BenchOptions


@dataclass(frozen=True)
class HubOptions(BenchOptions):
    """``data``: a local copy (file or folder); ``revision``: the Hub release's branch, tag or commit (default:
    the pinned one; ignored with ``data``)."""

    revision: str | None = None
