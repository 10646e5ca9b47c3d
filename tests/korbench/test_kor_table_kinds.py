"""Tables say what they report (``Table.kind``); the HTML report dispatches on the kind, not on titles."""

from __future__ import annotations

from reasoneval.benchmarks.korbench import report
from reasoneval.benchmarks.korbench.paper_compare import paper_table
from reasoneval.benchmarks.korbench.selfcorrect import RoundStats
from reasoneval.benchmarks.korbench.subquestions import TypeStats
from reasoneval.benchmarks.korbench.table_kinds import MIXED, SELF_CORRECTION_ROUNDS, SUBQUESTIONS
from reasoneval.core.benchmark import Table, TableKind


def test_korbench_tables_carry_their_kind() -> None:
    t = report.Tally()
    t.add(True, False)
    assert report.table2([((), {"operation": t})]).kind is TableKind.LEADERBOARD
    assert report.table3([((), {"Multi-Q": t})]).kind is MIXED
    assert report.self_correction_table([((), {"logic": RoundStats()})]).kind is SELF_CORRECTION_ROUNDS
    assert report.subquestion_table([((), TypeStats())]).kind is SUBQUESTIONS
    assert report.table2([((), {"operation": t})]).to_json()["kind"] == "leaderboard"
    assert "kind" not in Table("t", [], []).to_json()  # generic tables keep their JSON shape


def test_report_dispatches_on_kind_not_title() -> None:
    cols = report.TABLE2_COLUMNS
    # a leaderboard whatever its title says; a rounds table is never compared, even titled "Table 2"
    assert paper_table(Table("anything at all", cols, [], kind=TableKind.LEADERBOARD)) == 2
    assert paper_table(Table("x", ["Overall", "Multi-Q"], [], kind=MIXED)) == 3
    assert paper_table(Table("KOR-Bench Table 2", cols, [], kind=SELF_CORRECTION_ROUNDS)) is None
    # a table made without a kind is not one of the paper's, whatever its columns are called
    assert paper_table(Table("KOR-Bench Table 2", cols, [])) is None


def test_table2_cells_are_typed() -> None:
    t = report.Tally()
    t.add(True, False)
    t.add(False, True)
    row = report.table2_row({"counterfactual": t})
    cf = row[-1]
    assert cf == "50.00 (50.00)" and (cf.value, cf.secondary, cf.unit) == (50.0, 50.0, "%")
    assert [report.TABLE2_COLUMNS[i].id for i in range(6)] == ["overall", "operation", "logic", "cipher", "puzzle",
                                                             "counterfactual"]
    js = report.table2([((), {"counterfactual": t})]).to_json()
    assert js["rows"][0][-1] == "50.00 (50.00)"  # JSON rows as shown, the numbers beside them
    assert js["cells"] == [[0, 5, {"value": 50.0, "secondary": 50.0, "unit": "%"}]]
    assert js["column_ids"][0] == "overall"
