"""With --samples, a main table's n counts items (an item's samples once), and accuracy is over every sample."""

from __future__ import annotations

from reasoneval.benchmarks.general365.analysis import Scored as G365Scored
from reasoneval.benchmarks.general365.analysis import overall_table
from reasoneval.benchmarks.rbench.analysis import Scored, accuracy_table
from reasoneval.core.benchmark import Benchmark, ScoredRow, Turn
from reasoneval.core.values import Completion, Item, Outcome, Prompt, Verdict


class _Toy(Benchmark):
    name = "toy-samples"

    def subsets(self) -> list[str]:
        return ["a"]

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return []

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat("q")

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return Verdict(Outcome.INCORRECT)


def _v(ok: bool) -> Verdict:
    return Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, "x", "rule", {})


# 2 items x 3 samples: item 1 right in 2 of 3 samples, item 2 in 1 of 3 -> 3 of 6 answers
ANSWERS = [("1", 0, True), ("1", 1, True), ("1", 2, False), ("2", 0, True), ("2", 1, False), ("2", 2, False)]


def test_default_summary_counts_items() -> None:
    rows = [ScoredRow(f"a/{k}", "a", s, [Turn(Prompt.chat("q"), Completion("x"), _v(ok))]) for k, s, ok in ANSWERS]
    (t,) = _Toy().summarize(rows, "zero-shot")
    assert t.rows == [["a", 2, 50.0, 0, 0], ["overall", 2, 50.0, 0, 0]]  # n was 6
    assert t.notes and "samples of one item count once" in t.notes[0]
    (one,) = _Toy().summarize(rows[::3], "zero-shot")  # one sample each: no note
    assert one.rows[0][:3] == ["a", 2, 100.0] and one.notes == []


def test_rbench_and_general365_main_tables_count_items() -> None:
    t = accuracy_table([Scored("t_en", k, _v(ok)) for k, _, ok in ANSWERS], "cot")
    assert t.rows == [["t_en", 2, 3, 50.0, 0, 0]]  # n was 6
    g = overall_table([G365Scored(k, _v(ok)) for k, _, ok in ANSWERS], "paper")
    assert g.rows[0][:3] == ["overall", 2, 50.0]
