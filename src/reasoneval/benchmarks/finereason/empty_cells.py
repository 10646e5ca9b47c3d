"""FineReason Fig. 5: Sudoku state checking against the number of empty cells of the state.

The paper plots the density of empty cells for correct and for incorrect predictions (fewer empty cells: more
often right). Here the same data as a table: accuracy per band of empty cells, the chance baselines of that
band's own labels beside it (:mod:`.baselines`), and the mean empty cells of correct and incorrect answers.
Verdicts carry ``detail["empty_cells"]`` (runs scored before it existed: ``reasoneval score RUN`` re-scores
without calling the model).
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import fmean

from ...core.benchmark import Table
from ...core.values import Outcome, Verdict
from .baselines import COLUMNS as BASELINE_COLUMNS
from .baselines import label_baseline

BAND = 10
RANDOM_SC = 50.0  # a uniform coin's expected accuracy (the report's Fig. 5 plot line); tables use .baselines


def labelled_points(verdicts: Iterable[Verdict | None]) -> list[tuple[int, bool, object]]:
    """(empty cells, correct, gold label) per scored Sudoku verdict that carries its empty-cell count (errors
    left out)."""
    out = []
    for v in verdicts:
        if v is None or v.outcome is Outcome.ERROR:
            continue
        e = v.detail.get("empty_cells")
        if isinstance(e, int) and not isinstance(e, bool):
            out.append((e, bool(v.correct), v.detail.get("gold")))
    return out


def points(verdicts: Iterable[Verdict | None]) -> list[tuple[int, bool]]:
    """(empty cells, correct) per scored Sudoku verdict that carries its empty-cell count (errors left out)."""
    return [(e, ok) for e, ok, _ in labelled_points(verdicts)]


def band(e: int, width: int = BAND) -> str:
    lo = (e // width) * width
    return f"{lo}-{lo + width - 1}"


def empty_cells_table(verdicts: Iterable[Verdict | None], title: str, width: int = BAND) -> Table | None:
    pts = labelled_points(verdicts)
    if not pts:
        return None
    by: dict[int, list[tuple[bool, object]]] = {}
    for e, ok, gold in pts:
        by.setdefault(e // width, []).append((ok, gold))
    rows: list[list[object]] = []
    for b in sorted(by):
        oks = [ok for ok, _ in by[b]]
        rows.append([band(b * width, width), len(oks), sum(oks), len(oks) - sum(oks),
                     round(100 * sum(oks) / len(oks), 2), *label_baseline(g for _, g in by[b]).cells()])
    right = [e for e, ok, _ in pts if ok]
    wrong = [e for e, ok, _ in pts if not ok]
    mean = ", ".join(f"{name} {fmean(xs):.1f} (n={len(xs)})" for name, xs in (("correct", right), ("incorrect", wrong))
                     if xs)
    return Table(title, ["empty cells", "n", "correct", "incorrect", "accuracy", *BASELINE_COLUMNS], rows,
                 [f"Paper Fig. 5 as a table: Sudoku state-checking answers by empty cells of the state (bands of "
                  f"{width}). Mean empty cells: {mean}. Baselines from each band's own labels: majority = always "
                  "the more frequent label, random = a guess with the labels' frequencies."])
