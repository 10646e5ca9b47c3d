"""R-Bench summaries: Top-1 accuracy per config (languages never merged), per department and subject,
and EN/ZH consistency on paired questions (same id in the en and zh configs)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...core.benchmark import Table
from ...core.number_format import rounded
from ...core.values import Outcome, Verdict


@dataclass
class Scored:
    """One scored answer, however it was produced (a stored run or a rescored file)."""

    subset: str
    id: str
    verdict: Verdict | None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Count:
    n: int = 0
    correct: int = 0
    unextractable: int = 0
    errors: int = 0
    ids: set[str] = field(default_factory=set)  # the items answered (several samples of one count once)

    @property
    def items(self) -> int:
        return len(self.ids) or self.n

    def add(self, v: Verdict | None, item: str | None = None) -> None:
        self.n += 1
        if item is not None:
            self.ids.add(item)
        if v is None:
            return
        self.correct += int(v.outcome is Outcome.CORRECT)
        self.unextractable += int(v.outcome is Outcome.UNANSWERABLE)
        self.errors += int(v.outcome is Outcome.ERROR)

    @property
    def accuracy(self) -> float:
        return rounded(100 * self.correct / max(self.n - self.errors, 1))  # as every table rounds


def _order(subset: str) -> tuple[int, str]:
    order = {"t_en": 0, "t_zh": 1, "m_en": 2, "m_zh": 3}
    return order.get(subset, 9), subset


def accuracy_table(rows: list[Scored], mode: str) -> Table:
    stats: dict[str, _Count] = defaultdict(_Count)
    for r in rows:
        stats[r.subset].add(r.verdict, r.id)
    out = [[s, c.items, c.correct, c.accuracy, c.unextractable, c.errors]
           for s, c in sorted(stats.items(), key=lambda kv: _order(kv[0]))]
    return Table(f"R-Bench Top-1 accuracy ({mode})", ["config", "n", "correct", "accuracy", "unextractable",
                                                     "errors"], out,
                 notes=["Each config is scored on its own, as in the paper; languages are never merged. "
                        "n: items (the samples of one item count once); accuracy = correct / (answers - errors) over "
                        "every sample; unextractable answers count as wrong."])


def _group_table(rows: list[Scored], title: str, keys: Callable[[Scored], tuple[str, ...]],
                 columns: list[str]) -> Table | None:
    stats: dict[tuple[str, ...], _Count] = defaultdict(_Count)
    for r in rows:
        stats[(r.subset, *keys(r))].add(r.verdict, r.id)
    if all(k[1] == "(unknown)" for k in stats):
        return None
    out = [[*k, c.items, c.accuracy] for k, c in sorted(stats.items(), key=lambda kv: (_order(kv[0][0]), kv[0]))]
    return Table(title, ["config", *columns, "n", "accuracy"], out)


def breakdown_tables(rows: list[Scored]) -> list[Table]:
    def dept(r: Scored) -> tuple[str, ...]:
        return (r.meta.get("department") or "(unknown)",)

    def subj(r: Scored) -> tuple[str, ...]:
        return (r.meta.get("department") or "(unknown)", r.meta.get("subject") or "(unknown)")

    out = [_group_table(rows, "R-Bench accuracy per department", dept, ["department"]),
           _group_table(rows, "R-Bench accuracy per subject", subj, ["department", "subject"])]
    return [t for t in out if t is not None]


def consistency_table(rows: Iterable[Scored]) -> Table | None:
    """Pairs (split, id) present in both languages: agreement of correctness and of the chosen letter."""
    by: dict[tuple[str, str], dict[str, Scored]] = defaultdict(dict)
    for r in rows:
        split, _, lang = r.subset.partition("_")
        by[(split, r.id)][lang] = r
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for (split, _), pair in by.items():
        en, zh = pair.get("en"), pair.get("zh")
        if en is None or zh is None or en.verdict is None or zh.verdict is None:
            continue
        if Outcome.ERROR in (en.verdict.outcome, zh.verdict.outcome):
            continue
        s = stats[split]
        ce, cz = en.verdict.correct, zh.verdict.correct
        s[0] += 1
        s[1] += int(ce and cz)
        s[2] += int(ce and not cz)
        s[3] += int(cz and not ce)
        s[4] += int(not ce and not cz)
        s[5] += int(en.verdict.extracted is not None and en.verdict.extracted == zh.verdict.extracted)
    if not stats:
        return None
    out = []
    for split in sorted(stats):
        n, both, en_only, zh_only, neither, same = stats[split]
        out.append([f"R-Bench-{split.upper()}", n, both, en_only, zh_only, neither,
                    rounded(100 * (both + neither) / n), rounded(100 * same / n)])
    return Table("R-Bench EN/ZH consistency (paired questions)",
                 ["split", "pairs", "both correct", "en only", "zh only", "both wrong", "outcome agreement %",
                  "same letter %"], out,
                 notes=["Pairs share an id across the en and zh configs; pairs with a backend error are left out."])


def all_tables(rows: list[Scored], mode: str) -> list[Table]:
    breakdowns = breakdown_tables(rows)
    tables = [accuracy_table(rows, mode), *breakdowns]
    if not breakdowns:  # say so, rather than leave the paper's breakdowns silently out
        tables[0].notes.append(
            "No per-department or per-subject table: these items carry no department or subject (the public "
            "release has none, and no key links its items to the paper's Tables 8-9; see rbench/paper_meta.py).")
    cons = consistency_table(rows)
    if cons is not None:
        tables.append(cons)
    return tables
