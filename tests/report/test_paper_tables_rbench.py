"""R-Bench Tables 5-7 across runs, the published numbers beside ours, and the paired CoT ablation."""

from __future__ import annotations

from reasoneval.benchmarks.rbench.paper_numbers import RBENCH_TABLE5, RBENCH_TABLE7, rbench_model
from reasoneval.benchmarks.rbench.paper_tables import accuracy_table, cot_ablation_table
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.paper_tables import extra_tables


def _rows(subset: str, right: set[int], n: int, errors: frozenset[int] = frozenset()) -> list[ScoredRow]:
    out = []
    for i in range(n):
        if i in errors:
            c, v = Completion("", "stop", Usage(1, 1), error="HTTP 500"), Verdict(Outcome.ERROR, None, "error", {})
        else:
            c = Completion("ANSWER: A", "stop", Usage(1, 1))
            v = Verdict(Outcome.CORRECT if i in right else Outcome.INCORRECT, "A", "m", {})
        out.append(ScoredRow(f"{subset}/{i}", subset, 0, [Turn(Prompt.chat("q"), c, v)]))
    return out


def _view(model: str, mode: str, rows: list[ScoredRow]) -> RunView:
    return RunView({"run_id": f"{model}-{mode}", "model": model, "mode": mode, "benchmark": "rbench", "subset": None,
                    "spec": {}}, rows, [Table("t", ["config", "accuracy"], [["x", 1.0]])], collect.run_stats(rows))


def test_model_names_meet_the_papers_spelling() -> None:
    assert rbench_model("openai/gpt-4o-2024-11-20", 5) == "GPT-4o-20241120"
    assert rbench_model("hf/Qwen/Qwen2.5-7B-Instruct", 5) == "Qwen2.5-7B-Instruct"
    assert rbench_model("vllm/meta-llama/Llama-3.3-70B-Instruct", 7) == "LLAMA3.3-70B-Instruct"
    assert rbench_model("anthropic/claude-3-5-sonnet-20240620", 5) == "Claude3.5-sonnet@0620"
    assert rbench_model("openai/o1-mini", 7) == "o1-mini@20240912"
    assert rbench_model("openai/gpt-4o", 6) == "GPT-4o-20241120"
    assert rbench_model("llamacpp/default", 5) is None
    assert RBENCH_TABLE5["Deepseek-R1"] == {"t_en": 61.2, "t_zh": 59.3}
    assert RBENCH_TABLE7["Qwen2.5-32B-Instruct"] == {"cot": 50.8, "no-cot": 44.6}


def test_table5_ours_beside_the_paper_with_intervals() -> None:
    views = [_view("hf/Qwen/Qwen2.5-7B-Instruct", "cot", _rows("t_en", set(range(40)), 100)
                   + _rows("t_zh", set(range(50)), 101, errors=frozenset({100}))),
             _view("llamacpp/default", "cot", _rows("t_en", set(range(10)), 20))]
    t = accuracy_table(views, 5)
    assert t is not None and t.title.startswith("R-Bench Table 5 layout")
    assert t.columns[:7] == ["model", "paper model", "R-Bench-T", "n", "95% CI", "paper", "Δ"]
    q = t.rows[0]
    assert q[:4] == ["Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct", 40.0, 100]  # the display name, then the paper's
    lo, hi = (float(x) for x in q[4].strip("[]").split(","))
    assert 29 < lo < 40 < hi < 51
    assert q[5:7] == [43.6, -3.6]
    assert q[7:9] == [50.0, 100]  # the failed call is left out, not counted wrong
    assert q[10:12] == [44.5, 5.5]
    assert t.rows[1][:4] == ["llamacpp/default", "", 50.0, 20] and t.rows[1][5:7] == [None, None]
    assert t.rows[1][7:9] == [None, 0]  # no t_zh items
    assert accuracy_table(views, 6) is None  # no multimodal runs


def test_cot_ablation_is_paired_on_common_items() -> None:
    model = "openai/gpt-4o-2024-11-20"
    cot = _rows("t_en", set(range(60)), 100)
    nocot = _rows("t_en", set(range(10, 50)), 100)  # CoT wins 20 items, loses none
    views = [_view(model, "cot", cot), _view(model, "no-cot", nocot), _view("m2", "cot", cot)]
    t = cot_ablation_table(views)
    assert t is not None and len(t.rows) == 1
    r = dict(zip(t.columns, t.rows[0], strict=True))
    assert (r["model"], r["config"], r["n"], r["w CoT"], r["w/o CoT"], r["Δ"]) == ("gpt-4o-2024-11-20", "R-Bench-T", 100, 60.0,
                                                                                 40.0, 20.0)
    assert 10 <= r["CI low"] < 20 < r["CI high"] <= 30
    assert r["p (bootstrap)"] < 0.01 and r["p (McNemar)"] < 0.001
    assert (r["CoT only right"], r["no-CoT only right"]) == (20, 0)
    assert (r["paper model"], r["paper w CoT"], r["paper w/o CoT"], r["paper Δ"]) == ("GPT-4o-20241120", 53.6, 51.5,
                                                                                     2.1)
    assert cot_ablation_table(views[:1]) is None


def test_extra_tables_include_rbench() -> None:
    views = [_view("m", "cot", _rows("t_en", {0}, 4)), _view("m", "no-cot", _rows("t_en", {0, 1}, 4))]
    titles = [t.title for t in extra_tables(views)]
    assert titles == ["R-Bench Table 5 layout: R-Bench-T zero-shot with CoT, Top-1 accuracy (%)",
                      "R-Bench Table 7 layout: CoT ablation (paired, CoT − no-CoT)"]


def test_html_report_shows_cross_run_tables_escaped() -> None:
    from reasoneval.report.html_page import build_html

    evil = 'x<script>alert(1)</script>"'
    views = [_view(evil, "cot", _rows("t_en", {0}, 4)), _view(evil, "no-cot", _rows("t_en", {0, 1}, 4))]
    page = build_html(views, load_items=False)
    assert 'id="lb-paper-tables"' in page and "R-Bench Table 7 layout" in page
    assert "<script>alert(1)" not in page and "x&lt;script&gt;alert(1)&lt;/script&gt;&quot;" in page


def test_runs_on_other_data_are_separate_rows_still_matched_to_the_paper() -> None:
    from reasoneval.benchmarks.rbench.paper_tables import accuracy_table

    m = "openai/gpt-4o-2024-11-20"
    a = _view(m, "cot", _rows("t_en", {0, 1}, 4))
    b = _view(m, "cot", _rows("t_en", {0, 1, 2, 3}, 4))
    a.run["spec"] = {"options": {"data": None}}
    b.run["spec"] = {"options": {"data": "/tmp/own"}}
    t = accuracy_table([a, b], 5, n_boot=200)
    assert t is not None
    rows = {r[0]: r for r in t.rows}
    m = "gpt-4o-2024-11-20"  # rows are labelled by the display name
    assert set(rows) == {f"{m} · data=null", f"{m} · data=/tmp/own"}
    assert rows[f"{m} · data=null"][2] == 50.0 and rows[f"{m} · data=/tmp/own"][2] == 100.0
    assert rows[f"{m} · data=null"][1] == rows[f"{m} · data=/tmp/own"][1] == "GPT-4o-20241120"  # still matched
