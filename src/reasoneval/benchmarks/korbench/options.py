"""KOR-Bench's typed options (``-O key=value``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reasoneval.core.options import BenchOptions


@dataclass(frozen=True)
class KorOptions(BenchOptions):
    """``scoring``: the reference evaluator (``official``) or its known defects fixed (``corrected``).

    ``data``: a KOR-Bench data folder (the release layout) or a JSON-lines file of category items, such as
    ``reasoneval generate korbench-cipher`` prints (each item may carry its own ``rule_content``).
    """

    scoring: Literal["official", "corrected"] = "official"
