"""MMLU tables: accuracy overall, per category (paper App. A.9 Table 12) and per subject.

Accuracies are over questions (micro averages), as the MMLU authors' ``evaluate.py`` computes its category
and overall figures. The ``category`` and ``subject`` tables are ``TableKind.BREAKDOWN`` tables whose first
column names the group; FineReason's transfer report reads them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ...core.benchmark import ScoredRow, Table, TableKind
from ...core.values import Outcome
from ...core.verdicts import Method
from .categories import CATEGORIES

COLUMNS = ["n", "correct", "accuracy", "unextractable", "truncated", "errors"]
NOTE = ("Accuracy = correct / (n - errors) over questions; unextractable answers count as wrong. truncated: "
        "outputs cut off (token limit, or a <think> never closed), whatever their verdict: official scoring reads "
        "them as they are, corrected scoring counts them wrong.")


class Count:
    def __init__(self) -> None:
        self.n = self.correct = self.unextractable = self.truncated = self.errors = 0

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


def tables(rows: list[ScoredRow], mode: str, meta: Callable[[ScoredRow], dict[str, Any]]) -> list[Table]:
    total = Count()
    by_cat: dict[str, Count] = defaultdict(Count)
    by_subj: dict[tuple[str, str], Count] = defaultdict(Count)
    for r in rows:
        m = meta(r)
        total.add(r)
        by_cat[m.get("category") or "(unknown)"].add(r)
        by_subj[(m.get("category") or "(unknown)", r.subset)].add(r)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    cat_rows = [[c, *k.cells()] for c, k in sorted(by_cat.items(), key=lambda kv: (order.get(kv[0], 9), kv[0]))]
    subj_rows = [[s, c, *k.cells()] for (c, s), k in
                 sorted(by_subj.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1]))]
    return [Table(f"MMLU accuracy ({mode})", ["benchmark", *COLUMNS], [["MMLU", *total.cells()]], [NOTE],
                  kind=TableKind.LEADERBOARD),
            Table(f"MMLU accuracy per category ({mode})", ["category", *COLUMNS], cat_rows,
                  ["Categories of Hendrycks et al. (2021), as FineReason App. A.9 groups MMLU's 57 subjects."],
                  kind=TableKind.BREAKDOWN),
            Table(f"MMLU accuracy per subject ({mode})", ["subject", "category", *COLUMNS], subj_rows,
                  kind=TableKind.BREAKDOWN)]
