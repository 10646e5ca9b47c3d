"""Difficulty filter by pass rates (drop what strong models solve, or flag what
every model solves and what none does).

The chosen models are run on the rows with the benchmark's own protocol (``evaluate``, through the runner)
and/or stored runs are read; an item's pass rate is the mean over runs of the share of its samples answered
correctly. Rows with ``min_pass <= rate <= max_pass`` are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store.sqlite import RunStore
from .calls import Context, evaluate
from .passrates import default_file, eval_file, pass_rates, resolve
from .rows import BuildError, Row, row_id
from .steps import StepResult, step


@dataclass(frozen=True)
class DifficultyParams:
    target: str = ""  # benchmark[:subset] that evaluates the rows, e.g. mybench:en
    models: tuple[str, ...] = ()  # models run on the rows (cached, stored)
    runs: tuple[str, ...] = ()  # stored runs (ids or prefixes) read as well
    max_pass: float = 0.5
    min_pass: float = 0.0
    unrated: str = "drop"  # keep | drop rows no run scored
    file: str = ""  # data file name the benchmark reads (default: <benchmark>-<subset>.jsonl)
    max_tokens: int | None = None
    temperature: float | None = None
    samples: int = 1
    judge: str | None = None
    id_field: str | None = None


@step("difficulty", DifficultyParams, "keep rows whose pass rate over chosen models lies in [min_pass, max_pass]")
def difficulty(rows: list[Row], p: DifficultyParams, ctx: Context) -> StepResult:
    if not p.models and not p.runs:
        raise BuildError("step difficulty: give models (run on the rows) and/or runs (stored)")
    if p.models and not p.target:
        raise BuildError("step difficulty: models need a target benchmark[:subset] (reasoneval list)")
    if p.unrated not in ("keep", "drop"):
        raise BuildError("step difficulty: unrated must be keep or drop")
    run_ids: list[str] = []
    if p.models:
        data = eval_file(rows, p.file or default_file(p.target), ctx)
        for m in p.models:
            run_ids.append(evaluate(p.target, data, m, ctx, p.max_tokens, p.samples, p.temperature, p.judge))
    st = RunStore(ctx.store, readonly=True)
    try:
        for ref in p.runs:
            run_ids.append(resolve(st, ref)["run_id"])
        per_run = {r: pass_rates(st, r) for r in run_ids}
    finally:
        st.close()
    kept: list[Row] = []
    dropped: dict[str, list[str]] = {"too_easy": [], "too_hard": [], "unrated": []}
    rates: dict[str, float | None] = {}
    for row in rows:
        rid = row_id(row, p.id_field)
        got = [pr[rid] for pr in per_run.values() if rid in pr]
        rate = sum(got) / len(got) if got else None
        rates[rid] = None if rate is None else round(rate, 4)
        if rate is None:
            if p.unrated == "drop":
                dropped["unrated"].append(rid)
                continue
        elif rate > p.max_pass:
            dropped["too_easy"].append(rid)
            continue
        elif rate < p.min_pass:
            dropped["too_hard"].append(rid)
            continue
        kept.append(row)
    report: dict[str, Any] = {"runs": run_ids, "max_pass": p.max_pass, "min_pass": p.min_pass,
                              "kept": len(kept), "dropped": {k: len(v) for k, v in dropped.items()},
                              "dropped_ids": dropped, "pass_rates": rates}
    return StepResult(kept, report)
