"""Chance baselines of state checking, from the labels of the items a run actually used.

The released state sets are balanced for three puzzles but not for Grid (94 solvable / 406 unsolvable), and a
``--limit`` or a generated set can have any balance, so a fixed "random 50%" misleads: always answering
"Unsolvable" scores 81.20 on Grid. Per row of a table:

* ``majority``: the accuracy of always answering the more frequent label;
* ``random``: the expected accuracy of a guess drawn with the labels' own frequencies, ``p² + (1 - p)²``
  (a uniform coin scores 50 on any set, which is never above the majority baseline);
* ``labels S/U``: the solvable / unsolvable counts they come from (their sum is the baseline's n: the items
  whose label is known, failed model calls left out as they are from accuracy).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SOLVABLE, UNSOLVABLE = "Solvable", "Unsolvable"
COLUMNS = ["labels S/U", "majority", "random"]
NOTE = ("baselines from the labels of the items scored in this run (failed calls left out): majority = always "
        "the more frequent label, random = a guess drawn with the labels' own frequencies (p² + (1-p)²); "
        "labels S/U = solvable/unsolvable counts (their sum is the baselines' n)")


@dataclass(frozen=True)
class LabelBaseline:
    solvable: int
    unsolvable: int

    @property
    def n(self) -> int:
        return self.solvable + self.unsolvable

    @property
    def majority(self) -> float | None:
        return round(100 * max(self.solvable, self.unsolvable) / self.n, 2) if self.n else None

    @property
    def random(self) -> float | None:
        if not self.n:
            return None
        p = self.solvable / self.n
        return round(100 * (p * p + (1 - p) * (1 - p)), 2)

    @property
    def counts(self) -> str:
        return f"{self.solvable}/{self.unsolvable}"

    def cells(self) -> list[object]:
        return [self.counts, self.majority, self.random]


def label_baseline(golds: Iterable[object]) -> LabelBaseline:
    """Baselines over the given gold labels (anything that is not a state-checking label is ignored)."""
    s = u = 0
    for g in golds:
        if g == SOLVABLE:
            s += 1
        elif g == UNSOLVABLE:
            u += 1
    return LabelBaseline(s, u)
