"""MATH's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...core.options import BenchOptions


@dataclass(frozen=True)
class HubOptions(BenchOptions):
    """``data``: a local copy (file or folder); ``revision``: the Hub release's branch, tag or commit (default:
    the pinned one; ignored with ``data``); ``scoring``: ``official`` (the reference code's reading, the default)
    or ``corrected`` (this harness's reading; ``rescore --diff`` names each difference and its cause)."""

    revision: str | None = None
    scoring: Literal["official", "corrected"] = "official"
