"""MATH tables: accuracy overall, per difficulty level (1-5, paper App. A.7) and per subject.

Each row's level and subject come from its verdict (they are recorded there when it is scored) or, for rows
the runner decided alone (a failed call), from the items. The ``level`` and ``subject`` tables are
``TableKind.BREAKDOWN`` tables whose first column names the group; FineReason's transfer report reads them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.benchmark import ScoredRow, Table, TableKind
from ...core.values import Outcome
from ...core.verdicts import Method

COLUMNS = ["n", "correct", "accuracy", "unextractable", "truncated", "errors"]
NOTE = ("Accuracy = correct / (n - errors); unextractable answers count as wrong. truncated: outputs cut off "
        "(token limit, or a <think> never closed), whatever their verdict: official scoring reads them as they "
        "are, corrected scoring counts them wrong.")


@dataclass
class Count:
    n: int = 0
    correct: int = 0
    unextractable: int = 0
    truncated: int = 0
    errors: int = 0

    def add(self, r: ScoredRow) -> None:
        self.n += 1
        v = r.final.verdict
        if v is None or v.outcome is Outcome.ERROR or r.final.completion.error is not None:
            self.errors += 1
            return
        self.correct += int(v.correct)
        self.unextractable += int(v.method == Method.UNEXTRACTABLE)
        self.truncated += int(r.final.cut_off)

    def cells(self) -> list[Any]:
        acc = round(100 * self.correct / (self.n - self.errors), 2) if self.n > self.errors else None
        return [self.n, self.correct, acc, self.unextractable, self.truncated, self.errors]


def grouped(rows: list[ScoredRow], key: Callable[[ScoredRow], Any]) -> dict[Any, Count]:
    out: dict[Any, Count] = defaultdict(Count)
    for r in rows:
        out[key(r)].add(r)
    return dict(out)


def tables(rows: list[ScoredRow], mode: str, meta: Callable[[ScoredRow], dict[str, Any]]) -> list[Table]:
    total = Count()
    for r in rows:
        total.add(r)
    overall = Table(f"MATH accuracy ({mode})", ["benchmark", *COLUMNS], [["MATH", *total.cells()]], [NOTE],
                    kind=TableKind.LEADERBOARD)
    by_level = grouped(rows, lambda r: meta(r).get("level"))
    level_rows = [[f"Level {lv}" if lv else "(unknown)", *c.cells()]
                  for lv, c in sorted(by_level.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]
    by_subject = grouped(rows, lambda r: meta(r).get("subject") or "(unknown)")
    subject_rows = [[s, *c.cells()] for s, c in sorted(by_subject.items())]
    return [overall,
            Table(f"MATH accuracy per level ({mode})", ["level", *COLUMNS], level_rows,
                  ["Levels 1-5 as released (5 hardest); FineReason App. A.7 compares them across training mixes."],
                  kind=TableKind.BREAKDOWN),
            Table(f"MATH accuracy per subject ({mode})", ["subject", *COLUMNS], subject_rows,
                  kind=TableKind.BREAKDOWN)]
