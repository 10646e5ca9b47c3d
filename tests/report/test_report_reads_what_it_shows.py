"""The report reads and computes only what it shows (issue 34, speed): a run's compact rows are read by rowid range
when its rows lie together in the store and through the run's index otherwise (runs written at once, their rows
interleaved), both in stored order; KOR-Bench's per-rule tables, left out at many runs, are never computed, and
``--tables all`` gives them as they were computed before."""

from __future__ import annotations

import random
from pathlib import Path

from test_slim_rows import _completion

from reasoneval.benchmarks.korbench import breakdown
from reasoneval.benchmarks.korbench.benchmark import _is_error
from reasoneval.core import registry
from reasoneval.core.table import DeferredTable
from reasoneval.report import collect
from reasoneval.report.assemble import MANY_RUNS, Selection, assemble
from reasoneval.runner.session import ScoringSession
from reasoneval.store.sqlite import RunStore


def _runs(path: Path, together: list[str], after: list[str]) -> RunStore:
    """KOR-Bench runs in one store: those of ``together`` written at once (item by item, their rows interleaved),
    then each of ``after`` written alone."""
    bench = registry.create("korbench", {})
    st = RunStore(path)
    rng = random.Random(7)
    items = [it for s in ("operation", "cipher", "puzzle") for it in bench.load(s, "zero-shot")[:4]]
    session = ScoringSession(bench, "zero-shot")
    for run_id in together + after:
        st.upsert_run(run_id, "korbench", "", "zero-shot", f"openai/{run_id}",
                      {"benchmark": "korbench", "mode": "zero-shot", "model": f"openai/{run_id}", "options": {},
                       "params": {}})
    for group in [together, *[[run_id] for run_id in after]]:
        for it in items:
            for run_id in group:
                c = _completion(rng, str(it.gold), True)
                st.put_completion(run_id, it.key, 0, 0, "answer", it.subset, bench.prompt(it, "zero-shot"),
                                  f"{run_id}{it.key}", c)
                st.put_verdict(run_id, it.key, 0, 0, "default", session.score(it, c))
    st.close()
    return RunStore(path, readonly=True)


def test_runs_read_in_stored_order_whether_their_rows_lie_together_or_not(tmp_path: Path) -> None:
    st = _runs(tmp_path / "runs.db", ["ra", "rb", "rc"], ["rd"])
    asked: list[str] = []
    st.db.set_trace_callback(asked.append)
    for run_id, by_range in [("ra", False), ("rd", True)]:
        asked.clear()
        slim = collect.slim_rows(st, run_id)
        reads = [q for q in asked if "LEFT JOIN verdicts" in q]
        assert len(reads) == 1 and ("c.rowid BETWEEN" in reads[0]) is by_range
        full = collect.scored_rows(st, run_id, prompts=False)
        assert len(slim) == len(full) == 12
        for a, b in zip(full, slim, strict=True):
            ca, cb = a.final.completion, b.final.completion
            assert (a.item_key, a.subset, a.sample, a.final.verdict, a.final.cut_off, a.final.error) == (
                b.item_key, b.subset, b.sample, b.final.verdict, b.final.cut_off, b.final.error)
            assert (ca.finish_reason, ca.usage, ca.latency_s, ca.reasoning_tokens, ca.ttft_s) == (
                cb.finish_reason, cb.usage, cb.latency_s, cb.reasoning_tokens, cb.ttft_s)
    st.db.set_trace_callback(None)


def test_per_rule_tables_left_out_are_never_computed(tmp_path: Path) -> None:
    runs = ["ra", "rb", "rc", "rd"]
    assert len(runs) > MANY_RUNS  # the default selection: the main tables
    st = _runs(tmp_path / "runs.db", [], runs)
    views = [collect.view(st, run_id, slim=True) for run_id in runs]
    deferred = [t for v in views for t in v.tables if isinstance(t, DeferredTable)]
    assert len(deferred) == 2 * len(runs)  # per rule tag and per rule, each run
    main = assemble(views)
    assert {rt.group for rt in main.left_out} == {"rules"} and len(main.left_out) == 2
    assert not any(t.computed for t in deferred)
    everything = assemble(views, Selection.parse("all"))
    assert all(t.computed for t in deferred)
    assert [rt.name for rt in everything.tables if rt.group == "rules"] == [rt.name for rt in main.left_out]
    # the rows are those the eager tables give (each run's scored rows, its rules' titles and tags)
    bench = registry.create("korbench", {})
    for v in views:
        got = [t for t in v.tables if isinstance(t, DeferredTable)]
        kept = [r for r in v.rows if not _is_error(r)]  # as the summary keeps them
        want = breakdown.breakdown_tables(bench._rule_results(kept), bench._rule_info, "zero-shot")
        failed = [f"{len(v.rows) - len(kept)} items failed (API errors) and are excluded; --retry-errors re-asks "
                  "them."] if len(kept) < len(v.rows) else []
        assert [(t.title, t.columns, t.rows, t.notes, t.kind) for t in got] == [
            (t.title, t.columns, t.rows, t.notes + failed, t.kind) for t in want]
        assert sum(row[4] for row in got[1].rows) == len(kept) > 0
