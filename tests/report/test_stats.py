"""Statistics beyond the papers: bootstrap CIs, paired tests, sample spread, size ablation, correlation."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import stats
from reasoneval.report.collect import RunView, run_stats
from reasoneval.report.stats_tables import ablation_table, ci_table, compare_table, correlation_table


def _row(key: str, sub: str, ok: bool, sample: int = 0, error: bool = False) -> ScoredRow:
    c = Completion("x", "stop", Usage(1, 1), 0.0, "HTTP 500" if error else None)
    v = Verdict(Outcome.ERROR if error else (Outcome.CORRECT if ok else Outcome.INCORRECT), None, "t")
    return ScoredRow(key, sub, sample, [Turn(Prompt.chat("q"), c, v)])


def _view(model: str, correct: dict[str, list[bool]], mode: str = "zero-shot", bench: str = "korbench",
          run_id: str | None = None) -> RunView:
    rows = [_row(f"{sub}/{i}", sub, ok) for sub, oks in correct.items() for i, ok in enumerate(oks)]
    run = {"run_id": run_id or f"{model}-{mode}", "model": model, "mode": mode, "benchmark": bench, "subset": None,
           "spec": {}}
    return RunView(run, rows, [], run_stats(rows))


def test_mcnemar_exact_matches_binomial_values() -> None:
    # b=0, c=6: 2 * (1/2)^6 = 0.03125 ; b=1, c=9: 2 * (1 + 10) / 1024
    assert stats.mcnemar_exact(0, 6) == pytest.approx(0.03125)
    assert stats.mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert stats.mcnemar_exact(5, 5) == 1.0
    assert stats.mcnemar_exact(0, 0) == 1.0


def test_bootstrap_ci_is_seeded_covers_the_mean_and_shrinks_with_n() -> None:
    small = [1.0] * 30 + [0.0] * 70
    large = small * 10
    a = stats.bootstrap_ci(small, 2000, seed=1)
    assert a == stats.bootstrap_ci(small, 2000, seed=1)
    assert a.value == pytest.approx(30.0)
    assert a.low < 30.0 < a.high
    # normal approximation: half-width ~ 1.96 * sqrt(.3 * .7 / 100) = 8.98 points
    assert (a.high - a.low) / 2 == pytest.approx(8.98, abs=1.5)
    b = stats.bootstrap_ci(large, 2000, seed=1)
    assert (b.high - b.low) < (a.high - a.low) / 2.5
    assert math.isnan(stats.bootstrap_ci([]).value)


def test_item_scores_average_samples_and_drop_errors() -> None:
    rows = [_row("a/1", "a", True, 0), _row("a/1", "a", False, 1), _row("a/2", "a", True, 0),
            _row("a/3", "a", False, 0, error=True)]
    assert stats.item_scores(rows) == {("a", "a/1"): 0.5, ("a", "a/2"): 1.0}


def test_paired_difference_pvalues_and_common_items_only() -> None:
    rng = random.Random(0)
    a = {("s", str(i)): float(rng.random() < 0.7) for i in range(400)}
    b = {k: (v if rng.random() < 0.8 else 1 - v) * (0.0 if rng.random() < 0.3 else 1.0) for k, v in a.items()}
    b[("s", "only-in-b")] = 1.0
    p = stats.paired(a, b, 2000, seed=0)
    assert p.n == 400
    assert p.diff == pytest.approx(p.acc_a - p.acc_b)
    assert p.low < p.diff < p.high
    assert p.diff > 10 and p.low > 0 and p.p_bootstrap < 0.01
    assert p.p_mcnemar is not None and p.p_mcnemar < 1e-6
    assert p.only_a - p.only_b == round(p.diff * p.n / 100)
    same = stats.paired(a, a, 500)
    assert same.diff == 0 and same.p_bootstrap == 1.0 and same.p_mcnemar == 1.0
    with pytest.raises(ValueError):
        stats.paired(a, {("t", "x"): 1.0})


def test_sample_spread_reports_each_sample() -> None:
    rows = [_row(f"a/{i}", "a", i < 6, 0) for i in range(10)] + [_row(f"a/{i}", "a", i < 4, 1) for i in range(10)]
    sp = stats.sample_spread(rows)
    assert sp is not None and sp.per_sample == [60.0, 40.0]
    assert sp.mean == 50.0 and sp.sd == pytest.approx(math.sqrt(200))
    assert stats.sample_spread(rows[:10]) is None


def test_size_ablation_spread_shrinks_to_zero_at_full_size() -> None:
    scores = {(sub, f"{sub}/{i}"): float(i % 2) for sub in ("x", "y") for i in range(50)}
    pts = stats.size_ablation(scores, [5, 25, 50], reps=100, seed=3)
    assert [p.size for p in pts] == [5, 25, 50]
    assert pts[0].sd > pts[1].sd > 0
    assert pts[2].sd == 0 and pts[2].mean == 50.0 == pts[2].min == pts[2].max
    assert all(p.low <= p.mean <= p.high for p in pts)
    default = stats.size_ablation(scores, reps=10)
    assert [p.size for p in default] == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]


def test_pearson_spearman_known_values() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert stats.pearson(x, [2, 4, 6, 8, 10]) == pytest.approx(1.0)
    assert stats.pearson(x, [5, 4, 3, 2, 1]) == pytest.approx(-1.0)
    # monotone but not linear: Spearman 1, Pearson below 1
    y = [1.0, 4.0, 9.0, 16.0, 100.0]
    assert stats.spearman(x, y) == pytest.approx(1.0)
    assert stats.pearson(x, y) < 0.95
    assert stats.ranks([10, 20, 20, 30]) == [1.0, 2.5, 2.5, 4.0]
    # scipy.stats.pearsonr([1,2,3,4,5],[2,1,4,3,5]) = 0.8
    assert stats.pearson(x, [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert math.isnan(stats.pearson([1, 1, 1], [1, 2, 3]))


def test_ci_and_compare_tables_from_views() -> None:
    a = _view("m/a", {"cipher": [True] * 40 + [False] * 10, "logic": [True] * 25 + [False] * 25})
    b = _view("m/b", {"cipher": [True] * 20 + [False] * 30, "logic": [True] * 25 + [False] * 25})
    t = ci_table([a, b])
    assert [r[2] for r in t.rows] == ["cipher", "logic", "overall"] * 2
    row = t.rows[0]
    assert row[3] == 50 and row[4] == 80.0 and row[5] < 80.0 < row[6]
    c = compare_table(a, b)
    by = {r[0]: r for r in c.rows}
    assert by["cipher"][4] == 40.0 and by["cipher"][10] < 0.001
    assert by["logic"][4] == 0.0 and by["logic"][9] == 1.0
    assert by["overall"][1] == 100


def test_correlation_across_models_between_subsets_and_benchmarks() -> None:
    views = [_view(f"m{k}", {"cipher": [i < 10 * k for i in range(50)], "logic": [i < 9 * k + 1 for i in range(50)]})
             for k in range(1, 5)]
    t = correlation_table(views)
    assert len(t.rows) == 1 and t.rows[0][2] == 4
    assert t.rows[0][3] == pytest.approx(1.0) and t.rows[0][4] == pytest.approx(1.0)
    # two benchmarks: one column each
    other = [_view(f"m{k}", {"all": [i < 5 - k for i in range(10)]}, bench="rbench") for k in range(1, 5)]
    t2 = correlation_table([*views, *other])
    assert [(r[0], r[1]) for r in t2.rows] == [("korbench (zero-shot)", "rbench (zero-shot)")]
    assert t2.rows[0][4] == pytest.approx(-1.0)
    assert not correlation_table(views[:2]).rows


def test_ablation_table_rows_per_size() -> None:
    v = _view("m", {"a": [i % 3 == 0 for i in range(30)], "b": [i % 2 == 0 for i in range(30)]})
    t = ablation_table([v], reps=20, sizes=[3, 30])
    assert [r[1] for r in t.rows] == [3, 30]
    assert t.rows[1][3] == 0.0


# ---------------------------------------------------------------- CLI on a real store

def test_cli_compare_correlate_ablation_and_report_ci(toy_store: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["compare", "run_zero_1", "run_sc_2", "--store", str(toy_store), "--json"])
    assert r.exit_code == 0, r.output
    t = json.loads(r.stdout)[0]
    assert t["columns"][4] == "A-B" and t["rows"][0][0] == "alpha"
    assert t["rows"][0][1] == 10  # the 10 alpha items both runs scored
    r = runner.invoke(app, ["report", "run_zero_1", "--store", str(toy_store), "--ci", "--json"])
    assert r.exit_code == 0, r.output
    titles = [x["title"] for x in json.loads(r.stdout)["tables"]]
    assert "Accuracy with 95% confidence intervals" in titles
    r = runner.invoke(app, ["ablation", "run_zero_1", "--store", str(toy_store), "--reps", "10", "--size", "2"])
    assert r.exit_code == 0, r.output
    assert "Dataset-size ablation" in r.stdout
    r = runner.invoke(app, ["correlate", "run_zero_1", "run_sc_2", "--store", str(toy_store)])
    assert r.exit_code == 0 and "store runs of at least 3 models" in r.stdout
