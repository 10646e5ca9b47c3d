"""Tables say what they report (``Table.kind``); the HTML report dispatches on the kind, not on titles."""

from __future__ import annotations

from reasoneval.benchmarks.korbench import report
from reasoneval.benchmarks.korbench.selfcorrect import RoundStats
from reasoneval.benchmarks.korbench.subquestions import TypeStats
from reasoneval.core.benchmark import Table, TableKind
from reasoneval.report.html import _korbench_kind


def test_korbench_tables_carry_their_kind() -> None:
    t = report.Tally()
    t.add(True, False)
    assert report.table2([((), {"operation": t})]).kind is TableKind.LEADERBOARD
    assert report.table3([((), {"Multi-Q": t})]).kind is TableKind.MIXED
    assert report.self_correction_table([((), {"logic": RoundStats()})]).kind is TableKind.SELF_CORRECTION_ROUNDS
    assert report.subquestion_table([((), TypeStats())]).kind is TableKind.SUBQUESTIONS
    assert report.table2([((), {"operation": t})]).to_json()["kind"] == "leaderboard"
    assert "kind" not in Table("t", [], []).to_json()  # generic tables keep their JSON shape


def test_report_dispatches_on_kind_not_title() -> None:
    cols = ["Overall", "Operation", "Logic", "Cipher", "Puzzle", "Counterfactual"]
    # a leaderboard whatever its title says; a rounds table is never compared, even titled "Table 2"
    assert _korbench_kind(Table("anything at all", cols, [], kind=TableKind.LEADERBOARD), "korbench") == 2
    assert _korbench_kind(Table("x", ["Overall", "Multi-Q"], [], kind=TableKind.MIXED), "korbench") == 3
    assert _korbench_kind(Table("KOR-Bench Table 2", cols, [], kind=TableKind.SELF_CORRECTION_ROUNDS),
                          "korbench") is None
    assert _korbench_kind(Table("KOR-Bench Table 2", cols, [], kind=TableKind.LEADERBOARD), "rbench") is None
    # a table made without a kind (hand-made, older JSON): its columns decide
    assert _korbench_kind(Table("t", cols, []), "korbench") == 2
