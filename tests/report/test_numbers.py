"""One formatter for every number in every table (report/number_format.py), p-values, and missing values."""

from __future__ import annotations

import json

from reasoneval.benchmarks.rbench.analysis import Scored
from reasoneval.benchmarks.rbench.analysis import accuracy_table as rbench_accuracy
from reasoneval.benchmarks.rbench.paper_tables import accuracy_table as rbench_table5
from reasoneval.core import number_format
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect, render
from reasoneval.report.collect import RunView
from reasoneval.report.html_page import fmt
from reasoneval.report.stats_tables import compare_table


def test_cells() -> None:
    assert number_format.cell(100 / 3) == "33.33" and number_format.cell(33.3) == "33.30" and number_format.cell(5) == "5"
    assert number_format.cell(None) == "" and number_format.cell(float("nan")) == "" and number_format.cell(True) == "True"
    assert number_format.rounded(100 / 3) == 33.33 and number_format.percent(1, 3) == 33.33 and number_format.percent(1, 0) is None
    assert number_format.interval(31.2, 35.456) == "[31.20, 35.46]"


def test_pvalues_never_print_as_zero() -> None:
    assert number_format.cell(number_format.PValue(0.0004)) == "<0.001"
    assert number_format.cell(number_format.PValue(0.0)) == "<0.001"
    assert number_format.cell(number_format.PValue(0.001)) == "0.001"
    assert number_format.cell(number_format.PValue(0.04321)) == "0.043" and f"{number_format.PValue(1.0)}" == "1.000"
    assert json.loads(json.dumps([number_format.PValue(0.0004)])) == [0.0004]  # a number in JSON
    assert number_format.pvalue(None) is None


def test_missing_carries_its_reason_everywhere() -> None:
    m = number_format.Missing(number_format.missing_categories(["Counterfactual"]))
    assert m == "n/a (no Counterfactual items)" and m.reason == "no Counterfactual items"
    assert json.loads(json.dumps([m])) == ["n/a (no Counterfactual items)"]
    assert number_format.mean_of_all([("a", 10.0), ("b", None)]) == "n/a (no b items)"
    assert number_format.mean_of_all([("a", 10.0), ("b", 15.0)]) == 12.5


def _row(key: str, subset: str, correct: bool) -> ScoredRow:
    v = Verdict(Outcome.CORRECT if correct else Outcome.INCORRECT, "A", "rule", {})
    return ScoredRow(key, subset, 0, [Turn(Prompt.chat("q"), Completion("A", "stop", Usage(1, 1)), v)])


def test_one_value_reads_the_same_in_every_table() -> None:
    """1 of 3 right: the benchmark's table and the paper-layout table both say 33.33 (they said 33.30 and 33.3)."""
    own = rbench_accuracy([Scored("t_en", str(i), Verdict(Outcome.CORRECT if i == 0 else Outcome.INCORRECT))
                           for i in range(3)], "cot")
    rows = [_row(f"t_en/{i}", "t_en", i == 0) for i in range(3)]
    view = RunView({"run_id": "r", "model": "m", "mode": "cot", "benchmark": "rbench", "subset": None, "spec": {}},
                   rows, [], collect.run_stats(rows))
    paper = rbench_table5([view], 5, n_boot=50)
    assert paper is not None
    md = render.to_markdown([own, paper])
    assert md.count("| 33.33 |") == 2 and "33.30" not in md and "33.3 " not in md
    assert render.to_csv(own).splitlines()[1] == "t_en,3,1,33.33,0,0"
    assert fmt(own.rows[0][3]) == "33.33"  # the HTML report's cells


def test_compare_table_pvalues_in_text_and_json() -> None:
    a = [_row(f"x/{i}", "x", True) for i in range(60)]
    b = [_row(f"x/{i}", "x", False) for i in range(60)]
    va, vb = (RunView({"run_id": n, "model": n, "mode": "m", "benchmark": "toy"}, r, [], collect.run_stats(r))
              for n, r in (("a", a), ("b", b)))
    t = compare_table(va, vb, n_boot=200)
    (row,) = t.rows
    cols = dict(zip(t.columns, row, strict=True))
    assert isinstance(cols["p (bootstrap)"], number_format.PValue) and cols["p (McNemar)"] < 1e-9
    line = render.to_csv(t).splitlines()[1]
    assert line == "x,60,100.00,0.00,100.00,100.00,100.00,60,0,<0.001,<0.001"  # p printed "0.00" before
    assert json.loads(json.dumps(Table(t.title, t.columns, t.rows).to_json()))["rows"][0][-1] < 0.001
