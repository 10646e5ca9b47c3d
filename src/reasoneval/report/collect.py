"""Read runs back from the store as ScoredRows and benchmark tables (no model is ever called here)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..core import registry
from ..core.benchmark import ScoredRow, Table, Turn
from ..core.tokens import known_total
from ..core.types import Outcome
from ..core.verdicts import Method
from ..store.sqlite import RunStore
from . import reasoning
from .labels import display_name


@dataclass
class RunView:
    run: dict[str, Any]
    rows: list[ScoredRow]
    tables: list[Table]
    stats: dict[str, Any]


def resolve_run(store: RunStore, ref: str) -> dict[str, Any]:
    runs = store.find_runs(ref)
    if not runs:
        raise KeyError(f"no run matching {ref!r} in {store.path}")
    if len(runs) > 1:
        raise KeyError(f"{ref!r} matches {len(runs)} runs: {', '.join(r['run_id'] for r in runs)}")
    return runs[0]


def scored_rows(store: RunStore, run_id: str, scorer: str = "default", prompts: bool = True) -> list[ScoredRow]:
    """``prompts=False``: the turns' prompts are left empty (tables never show them; the HTML report does)."""
    turns: dict[tuple[str, int], list[Turn]] = defaultdict(list)
    subsets: dict[tuple[str, int], str] = {}
    for c, verdict in store.answers(run_id, scorer, prompts=prompts):  # one pass: no table of every verdict first
        k = (c.item_key, c.sample)
        turns[k].append(Turn(c.prompt, c.completion, verdict))
        subsets[k] = c.subset
    return [ScoredRow(k[0], subsets[k], k[1], ts) for k, ts in turns.items()]


def run_stats(rows: list[ScoredRow], figs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    n = len(rows)
    errors = sum(1 for r in rows if r.final.completion.error is not None)
    unans = sum(1 for r in rows if r.final.verdict and r.final.verdict.outcome is Outcome.UNANSWERABLE)
    truncated = sum(1 for r in rows if r.final.verdict and r.final.verdict.method == Method.TRUNCATED)
    # over the answered calls (a failed call has no usage); unknown usage (None: not reported, or not a valid
    # count) is left out of the sums and counted, never taken as 0
    turns = [t.completion.usage for r in rows for t in r.turns if t.completion.error is None]
    ptoks, p_unknown = known_total(u.prompt_tokens for u in turns)
    ctoks, c_unknown = known_total(u.completion_tokens for u in turns)
    return {"items": n, "errors": errors, "unextractable": unans, "truncated": truncated,
            "extraction_failure_rate": round(unans / n, 4) if n else 0.0,
            "prompt_tokens": ptoks, "completion_tokens": ctoks, "calls": len(turns),
            "prompt_tokens_unknown": p_unknown, "completion_tokens_unknown": c_unknown,
            "mean_output_tokens": None if ctoks is None else round(ctoks / max(len(turns) - c_unknown, 1), 1),
            **reasoning.stats(rows, figs)}


def view(store: RunStore, ref: str, scorer: str = "default", prompts: bool = True) -> RunView:
    run = resolve_run(store, ref)
    bench = registry.for_run(run)  # configured with the run's own options (scoring policy, data, ...)
    rows = scored_rows(store, run["run_id"], scorer, prompts)
    figs = reasoning.figures(rows)
    return RunView(run, rows, bench.summarize(rows, run["mode"]) + reasoning.tables(rows, figs), run_stats(rows, figs))


def _identity(v: RunView) -> dict[str, str]:
    """What defines a run, flattened to short strings (generation parameters one key each)."""
    spec = v.run.get("spec") or {}
    out = {"model": display_name(v.run), "mode": str(v.run["mode"]), "subset": str(v.run["subset"])}
    for k, val in sorted((spec.get("params") or {}).items()):
        out[k] = json.dumps(val, ensure_ascii=False)
    for k, val in sorted((spec.get("options") or {}).items()):
        out[k] = val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)
    for k in ("samples", "seed", "limit", "limit_sample", "judge", "data_version"):
        if k in spec:
            out[k] = str(spec[k])
    return out


def merge(views: list[RunView]) -> list[Table]:
    """Tables of several runs with the same title/columns become one table with a model column, plus a
    column for everything else that differs between the runs (mode, options, parameters, data), so no two
    rows look the same; when nothing else tells two runs apart, their run ids do."""
    ids = [_identity(v) for v in views]
    keys = list(dict.fromkeys(k for d in ids for k in d))
    differing = [k for k in keys if k != "model" and len({d.get(k, "") for d in ids}) > 1]
    labels = [tuple(d.get(k, "") for k in ["model", *differing]) for d in ids]
    if len(set(labels)) < len(labels):
        differing.append("run")
        labels = [(*lab, v.run["run_id"]) for lab, v in zip(labels, views, strict=True)]
    merged: dict[tuple[str, tuple[str, ...]], Table] = {}
    for v, label in zip(views, labels, strict=True):
        for t in v.tables:
            key = (t.title, tuple(t.columns))
            if key not in merged:
                merged[key] = Table(t.title, ["model", *differing, *t.columns], [], [], t.kind)
            m = merged[key]
            m.rows.extend([[*label, *r] for r in t.rows])
            m.notes.extend(n for n in t.notes if n not in m.notes)  # every run's notes (e.g. each one's scoring)
    return list(merged.values())
