"""FineReason Fig. 5 (Sudoku state checking by empty cells) and the random baseline, on released states."""

from __future__ import annotations

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.empty_cells import empty_cells_table
from reasoneval.benchmarks.finereason.items import sudoku_empty_cells
from reasoneval.benchmarks.finereason.modes import SC
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Verdict


def test_verdicts_carry_empty_cells_and_the_table_bands_them() -> None:
    b = FineReason()
    items = b.load("sudoku", SC)[:40]
    rows, want = [], {}
    for it in items:
        text = "Answer: (A)" if it.gold == "Solvable" else "Answer: (B)"
        if sudoku_empty_cells(it.data) % 2:  # odd empty counts answered wrongly
            text = "Answer: (B)" if it.gold == "Solvable" else "Answer: (A)"
        v = b.score(it, text, SC)
        e = sum(1 for r in it.data["inputs"]["current"] for x in r if x == 0)
        assert v.detail["empty_cells"] == e and v.correct == (e % 2 == 0)
        want.setdefault(f"{e // 10 * 10}-{e // 10 * 10 + 9}", []).append(e % 2 == 0)
        rows.append(ScoredRow(it.key, it.subset, 0, [Turn(Prompt.chat("q"), Completion(text), v)]))
    tables = {t.title: t for t in b.summarize(rows, SC)}
    t = tables["finereason (state-checking) Sudoku accuracy by empty cells (Fig. 5)"]
    assert t.columns == ["empty cells", "n", "correct", "incorrect", "accuracy", "labels S/U", "majority", "random"]
    got = {r[0]: r for r in t.rows}
    assert set(got) == set(want)
    for k, oks in want.items():
        assert got[k][1:5] == [len(oks), sum(oks), len(oks) - sum(oks), round(100 * sum(oks) / len(oks), 2)]
        s, u = (int(x) for x in got[k][5].split("/"))
        assert s + u == len(oks) and got[k][6] == round(100 * max(s, u) / len(oks), 2)
    assert "Mean empty cells: correct" in t.notes[0]
    sc = tables["finereason (state-checking)"]
    assert sc.columns[3:6] == ["labels S/U", "majority", "random"]


def test_no_table_without_counts_and_errors_left_out() -> None:
    assert empty_cells_table([Verdict(Outcome.CORRECT, "Solvable", "m", {})], "t") is None
    t = empty_cells_table([Verdict(Outcome.CORRECT, "Solvable", "m", {"empty_cells": 12, "gold": "Solvable"}),
                           Verdict(Outcome.ERROR, None, "error", {"empty_cells": 12, "gold": "Unsolvable"})], "t")
    assert t is not None and t.rows == [["10-19", 1, 1, 0, 100.0, "1/0", 100.0, 100.0]]


def test_official_state_checking_reads_the_raw_output_through_the_runner() -> None:
    """The runner hands scorers the final text (<think> removed); official SC scoring must see it all."""
    from reasoneval.core.values import Completion as C
    from reasoneval.runner.verdict_of import score_completion

    item = next(i for i in FineReason().load("sudoku", SC) if i.gold == "Solvable")
    text = "<think>Looks stuck. (B)</think>\nAnswer: Solvable"
    off = FineReason()
    off.configure({"scoring": "official"})
    v = score_completion(off, item, C(text, "stop"), SC)
    assert v.extracted == "Unsolvable" and not v.correct  # the official reader sees "(B)" inside the reasoning
    assert v.detail["other_scoring"] == "Solvable"
    cor = FineReason()
    cor.configure({"scoring": "corrected"})
    v2 = score_completion(cor, item, C(text, "stop"), SC)
    assert v2.extracted == "Solvable" and v2.correct and v2.detail["other_scoring"] == "Unsolvable"
