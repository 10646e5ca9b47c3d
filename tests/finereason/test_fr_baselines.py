"""Issue 25 point 7: state-checking baselines come from the labels of the items the run used, with n shown."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.finereason.baselines import COLUMNS, label_baseline
from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.modes import SC
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Verdict


def _always(bench: FineReason, puzzle: str, text: str, limit: int | None = None) -> list[ScoredRow]:
    items = bench.load(puzzle, SC)[:limit]
    return [ScoredRow(it.key, it.subset, 0, [Turn(Prompt.chat("q"), Completion(text), bench.score(it, text, SC))])
            for it in items]


def test_label_baseline_arithmetic() -> None:
    b = label_baseline(["Solvable"] * 94 + ["Unsolvable"] * 406 + [None, "x"])
    assert (b.n, b.counts, b.majority, b.random) == (500, "94/406", 81.2, 69.47)
    even = label_baseline(["Solvable", "Unsolvable"] * 3)
    assert (even.majority, even.random) == (50.0, 50.0)
    assert label_baseline([]).cells() == ["0/0", None, None]


def test_grid_always_unsolvable_is_the_majority_baseline() -> None:
    bench = FineReason()
    rows = _always(bench, "gridpuzzle", "Answer: (B)")  # (B) = Unsolvable
    t = next(t for t in bench.summarize(rows, SC) if t.title == "finereason (state-checking)")
    assert t.columns[:6] == ["puzzle", "n", "accuracy", *COLUMNS]
    assert t.rows[0][:6] == ["gridpuzzle", 500, 81.2, "94/406", 81.2, 69.47]
    assert "majority" in t.notes[0] and "balanced" not in " ".join(t.notes)


def test_baselines_per_subset_of_the_items_used() -> None:
    bench = FineReason()
    rows = _always(bench, "sudoku", "Answer: (A)", 7) + _always(bench, "gridpuzzle", "Answer: (A)", 9)
    want: dict[str, list[str]] = {}
    for r in rows:
        want.setdefault(r.subset, []).append(r.final.verdict.detail["gold"])  # type: ignore[union-attr]
    t = next(t for t in bench.summarize(rows, SC) if t.title == "finereason (state-checking)")
    by = {r[0]: r for r in t.rows}
    for puzzle, golds in want.items():
        s, u = golds.count("Solvable"), golds.count("Unsolvable")
        assert by[puzzle][3:6] == [f"{s}/{u}", round(100 * max(s, u) / (s + u), 2),
                                   round(100 * ((s / (s + u)) ** 2 + (u / (s + u)) ** 2), 2)]
        assert by[puzzle][2] == round(100 * s / (s + u), 2)  # always "Solvable"
    allg = [g for gs in want.values() for g in gs]
    assert by["overall"][3] == f"{allg.count('Solvable')}/{allg.count('Unsolvable')}"


def test_failed_calls_are_not_in_the_baseline() -> None:
    bench = FineReason()
    rows = _always(bench, "sudoku", "Answer: (A)", 4)
    it = bench.load("sudoku", SC)[4]
    err = Verdict(Outcome.ERROR, None, "error", {"gold": it.gold})
    rows.append(ScoredRow(it.key, it.subset, 0, [Turn(Prompt.chat("q"), Completion("", error="HTTP 500"), err)]))
    t = next(t for t in bench.summarize(rows, SC) if t.title == "finereason (state-checking)")
    s, u = (int(x) for x in str(t.rows[0][3]).split("/"))
    assert s + u == 4 and t.rows[0][-1] == 1


@pytest.mark.parametrize("puzzle", ["sudoku"])
def test_empty_cells_bands_have_their_own_baselines(puzzle: str) -> None:
    bench = FineReason()
    rows = _always(bench, puzzle, "Answer: (B)", 60)
    t = next(t for t in bench.summarize(rows, SC) if "empty cells" in t.title)
    assert t.columns == ["empty cells", "n", "correct", "incorrect", "accuracy", *COLUMNS]
    for r in t.rows:
        s, u = (int(x) for x in str(r[5]).split("/"))
        assert s + u == r[1] and r[4] == round(100 * u / r[1], 2)  # always Unsolvable: accuracy = share of U
        assert r[6] == round(100 * max(s, u) / r[1], 2)
