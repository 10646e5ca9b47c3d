"""KOR-Bench result tables in the paper's layouts, as :class:`~reasoneval.core.benchmark.Table` objects.

* Table 2: Overall, Operation, Logic, Cipher, Puzzle, Counterfactual (real-life rate in parentheses).
  Overall = Σ correct / Σ items over the five categories (= the mean when all have 250 items).
* Table 3: Overall (pass rate), Multi-Q (pass rate), Multi-R, Multi-RQ (pass rate); overall accuracy pools
  the items of the three sets, the overall pass rate is the mean of the three sets' pass rates.
* Self-correction: cumulative accuracy after each round, per category and overall, plus correction rates.

An Overall exists only when every category (set) it stands for was scored: over fewer it is another number
than the paper's (a base model without Counterfactual got 22.50 where the paper has 35.20). Otherwise the cell
is :class:`~reasoneval.core.number_format.Missing` with the categories that are not there.
* Sub-questions: error rate per sub-step type.

Numbers are typed cells (:class:`~reasoneval.core.table.Cell`: the value, the real-life or pass rate as its
``secondary`` value) under columns with semantic ids (:data:`TABLE2_COLUMNS`: the category names; Table 3: the
set names, lower-cased), which :mod:`.paper_compare` reads to put the paper's numbers beside them.

``keys`` are leading row-label columns (e.g. ``("model", "mode")`` for re-scoring); the Benchmark's own
summaries pass none, the report layer prepends the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reasoneval.core.number_format import Missing, missing_categories, rounded
from reasoneval.core.table import Cell, Column, Table, TableKind

from .data import CATEGORIES, MIXED_SETS
from .selfcorrect import MAX_CALLS, RoundStats
from .subquestions import TypeStats
from .table_kinds import MIXED, SELF_CORRECTION_ROUNDS, SUBQUESTIONS

TABLE2_COLUMNS = [Column("Overall", "overall", "%"),
                  *(Column(c.capitalize(), c, "%", "real-life rate" if c == "counterfactual" else "")
                    for c in CATEGORIES)]
MISSING = "-"


@dataclass
class Tally:
    correct: int = 0
    total: int = 0
    real_life: int = 0
    pass_sum: float = 0.0  # mixed sets: Σ pass rates

    def add(self, correct: bool, real_life: bool = False, pass_rate: float | None = None) -> None:
        self.correct += int(correct)
        self.total += 1
        self.real_life += int(real_life)
        self.pass_sum += float(correct) if pass_rate is None else pass_rate

    @property
    def accuracy(self) -> float:
        return 100 * self.correct / self.total if self.total else 0.0

    @property
    def real_life_rate(self) -> float:
        return 100 * self.real_life / self.total if self.total else 0.0

    @property
    def pass_rate(self) -> float:
        return 100 * self.pass_sum / self.total if self.total else 0.0


def pct(x: float, secondary: float | None = None) -> Cell:
    """A percentage cell as every table stores it (rounded); ``secondary``: the number in parentheses."""
    return Cell(rounded(x), None if secondary is None else rounded(secondary), unit="%")


def set_column(name: str) -> Column:
    """A Table 3 column: the mixed set's name, its id lower-cased (``multi-q``)."""
    return Column(name, name.lower(), "%", "" if name == "Multi-R" else "pass rate")


def _absent(names: Sequence[str], have: Mapping[str, Any], label: Any = str.capitalize) -> list[str]:
    """``names`` with no scored item in ``have`` (as shown in the table's header)."""
    out = []
    for n in names:
        t = have.get(n)
        if t is None or not (t.total if isinstance(t, Tally) else t.n_items):
            out.append(label(n))
    return out


def categories_of(mode: str | None) -> tuple[str, ...]:
    """The categories a mode's Overall stands for (all five; ``trick``: Puzzle, the only one it applies to)."""
    from .applies import applies

    got = tuple(c for c in CATEGORIES if mode is None or applies(c, mode))
    return got or CATEGORIES


def _mode(keys: Sequence[str], k: Sequence[Any], mode: str | None) -> str | None:
    return str(k[list(keys).index("mode")]) if mode is None and "mode" in keys else mode


def table2_row(by_category: Mapping[str, Tally], mode: str | None = None) -> list[str]:
    """Overall and the five categories: :class:`Cell` objects (Counterfactual with its real-life rate),
    ``-`` for a category with no items, :class:`Missing` for an Overall that does not exist."""
    present = [by_category[c] for c in CATEGORIES if c in by_category and by_category[c].total]
    correct = sum(t.correct for t in present)
    total = sum(t.total for t in present)
    absent = _absent(categories_of(mode), by_category)
    row: list[str] = [Missing(missing_categories(absent)) if absent else pct(100 * correct / total)]
    for c in CATEGORIES:
        t = by_category.get(c)
        if t is None or not t.total:
            row.append(MISSING)
        elif c == "counterfactual":
            row.append(pct(t.accuracy, t.real_life_rate))
        else:
            row.append(pct(t.accuracy))
    return row


def table2(rows: Sequence[tuple[Sequence[Any], Mapping[str, Tally]]], keys: Sequence[str] = (),
           title: str = "KOR-Bench (Table 2 layout)", mode: str | None = None) -> Table:
    """``mode``: the protocol of every row (else each row's ``mode`` key), which sets the categories Overall
    needs."""
    return Table(title, [*keys, *TABLE2_COLUMNS], [[*k, *table2_row(t, _mode(keys, k, mode))] for k, t in rows],
                 notes=["Counterfactual: accuracy (real-life answer rate)."], kind=TableKind.LEADERBOARD)


def table3_row(by_set: Mapping[str, Tally]) -> tuple[list[str], list[str]]:
    """(cells, extra-set names present) for Overall, Multi-Q, Multi-R, Multi-RQ (+ Multi-RQ_Hard)."""
    main = [by_set[s] for s in MIXED_SETS[:3] if s in by_set and by_set[s].total]
    total = sum(t.total for t in main)
    correct = sum(t.correct for t in main)
    absent = _absent(MIXED_SETS[:3], by_set, str)
    overall = (Missing(missing_categories(absent)) if absent
               else pct(100 * correct / total, sum(t.pass_rate for t in main) / len(main)))
    cells: list[str] = [overall]
    extra = [s for s in MIXED_SETS[3:] if s in by_set]
    for s in (*MIXED_SETS[:3], *extra):
        t = by_set.get(s)
        if t is None or not t.total:
            cells.append(MISSING)
        elif s == "Multi-R":
            cells.append(pct(t.accuracy))
        else:
            cells.append(pct(t.accuracy, t.pass_rate))
    return cells, extra


def table3(rows: Sequence[tuple[Sequence[Any], Mapping[str, Tally]]], keys: Sequence[str] = (),
           title: str = "KOR-Bench complex tasks (Table 3 layout)") -> Table:
    extra_sets = [s for s in MIXED_SETS[3:] if any(s in t for _, t in rows)]
    out = []
    for k, t in rows:
        cells, extra = table3_row(t)
        cells += [MISSING] * (len(extra_sets) - len(extra))
        out.append([*k, *cells])
    return Table(title, [*keys, Column("Overall", "overall", "%", "pass rate"), *map(set_column, (*MIXED_SETS[:3], *extra_sets))], out,
                 notes=["accuracy (sub-question pass rate); Overall pools Multi-Q/R/RQ items, its pass rate is "
                        "the mean of the three sets' pass rates."], kind=MIXED)


def self_correction_table(rows: Sequence[tuple[Sequence[Any], Mapping[str, RoundStats]]], keys: Sequence[str] = (),
                          title: str = "KOR-Bench self-correction: accuracy after each round",
                          mode: str | None = None) -> Table:
    cols = [*keys, "category", "n", *[f"round {k}" for k in range(MAX_CALLS)],
            *[f"corr. rate r{k}" for k in range(1, MAX_CALLS)]]
    out: list[list[Any]] = []
    for k, stats in rows:
        pooled = RoundStats()
        for c in (*CATEGORIES, *sorted(set(stats) - set(CATEGORIES))):
            st = stats.get(c)
            if st is None or not st.n_items:
                continue
            out.append([*k, c, st.n_items, *map(pct, st.accuracies()), *map(pct, st.correction_rates())])
            pooled.merge(st)
        absent = _absent(categories_of(_mode(keys, k, mode)), stats)
        if absent:  # pooled over fewer categories it is not the paper's overall: shown missing, with why
            why = Missing(missing_categories(absent))
            out.append([*k, "overall", pooled.n_items, *[why] * (len(cols) - len(keys) - 2)])
        else:
            out.append([*k, "overall", pooled.n_items, *map(pct, pooled.accuracies()),
                        *map(pct, pooled.correction_rates())])
    return Table(title, cols, out, notes=[
        "round k: accuracy of the answer standing after k+1 calls (round 4 = final); corr. rate r_k: items first "
        "correct at round k / items not yet correct before it."], kind=SELF_CORRECTION_ROUNDS)


def subquestion_table(rows: Sequence[tuple[Sequence[Any], TypeStats]], keys: Sequence[str] = (),
                      title: str = "KOR-Bench cipher sub-steps: error rate by type") -> Table:
    types: list[str] = []
    for _, st in rows:
        types += [t for t in st.types() if t not in types]
    out = [[*k, pct(st.accuracy()), sum(st.total.values()),
            *[pct(st.error_rate(t)) if st.total[t] else MISSING for t in types]] for k, st in rows]
    return Table(title, [*keys, "step accuracy", "steps", *types], out,
                 notes=["error rate = 100 - accuracy over the sub-steps of that type"], kind=SUBQUESTIONS)

