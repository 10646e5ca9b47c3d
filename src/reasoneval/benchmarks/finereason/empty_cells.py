"""FineReason Fig. 5: Sudoku state checking against the number of empty cells of the state.

The paper plots the density of empty cells for correct and for incorrect predictions (fewer empty cells: more
often right). Here the same data as a table: accuracy per band of empty cells, the random baseline beside it,
and the mean empty cells of correct and incorrect answers. Verdicts carry ``detail["empty_cells"]`` (runs
scored before it existed: ``reasoneval score RUN`` re-scores without calling the model).
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import fmean

from ...core.benchmark import Table
from ...core.types import Outcome, Verdict

BAND = 10
RANDOM_SC = 50.0


def points(verdicts: Iterable[Verdict | None]) -> list[tuple[int, bool]]:
    """(empty cells, correct) per scored Sudoku verdict that carries its empty-cell count (errors left out)."""
    out = []
    for v in verdicts:
        if v is None or v.outcome is Outcome.ERROR:
            continue
        e = v.detail.get("empty_cells")
        if isinstance(e, int) and not isinstance(e, bool):
            out.append((e, bool(v.correct)))
    return out


def band(e: int, width: int = BAND) -> str:
    lo = (e // width) * width
    return f"{lo}-{lo + width - 1}"


def empty_cells_table(verdicts: Iterable[Verdict | None], title: str, width: int = BAND) -> Table | None:
    pts = points(verdicts)
    if not pts:
        return None
    by: dict[int, list[bool]] = {}
    for e, ok in pts:
        by.setdefault(e // width, []).append(ok)
    rows: list[list[object]] = []
    for b in sorted(by):
        oks = by[b]
        rows.append([band(b * width, width), len(oks), sum(oks), len(oks) - sum(oks),
                     round(100 * sum(oks) / len(oks), 2), RANDOM_SC])
    right = [e for e, ok in pts if ok]
    wrong = [e for e, ok in pts if not ok]
    mean = ", ".join(f"{name} {fmean(xs):.1f} (n={len(xs)})" for name, xs in (("correct", right), ("incorrect", wrong))
                     if xs)
    return Table(title, ["empty cells", "n", "correct", "incorrect", "accuracy", "random"], rows,
                 [f"Paper Fig. 5 as a table: Sudoku state-checking answers by empty cells of the state (bands of "
                  f"{width}). Mean empty cells: {mean}. random: a uniform Solvable/Unsolvable guess."])
