"""Re-score a stored run: stored completions -> verdicts. Never calls a model."""

from __future__ import annotations

from typing import Any

from ..core import registry
from ..core.values import GenParams, Item, Outcome, Verdict
from ..core.verdicts import Method
from ..store.imported import stored_items
from ..store.sqlite import RunStore
from .engine import SCORER, load_items
from .session import ScoringSession
from .spec import RunSpec


def spec_of(run: dict[str, Any]) -> RunSpec:
    """The RunSpec a stored run was made with (options as stored: every value)."""
    d = run["spec"]
    return RunSpec(d["benchmark"], d["subset"], d["mode"], d["model"], GenParams.from_json(d["params"]),
                   d["samples"], d["seed"], d["limit"], d.get("judge"), d.get("options") or {},
                   d.get("data_version", ""), **limit_of(d), origin=d.get("origin"),
                   model_id=d.get("model_id") or d["model"])


def limit_of(spec: dict[str, Any]) -> dict[str, Any]:
    """``limit_mode`` / ``limit_seed`` of a stored spec: a limited run without ``limit_sample`` took the first N
    items (all runs made before the sample existed)."""
    ls = spec.get("limit_sample")
    if isinstance(ls, dict):
        return {"limit_mode": str(ls.get("mode", "sample")), "limit_seed": int(ls.get("seed", 0))}
    return {"limit_mode": "first", "limit_seed": 0}


def rescore_run(store: RunStore, run: dict[str, Any]) -> int:
    bench = registry.for_run(run)  # the run's own options: scoring policy, data, ...
    spec = spec_of(run)
    # an imported run is re-graded against the items it was imported with (release golds), a run made here
    # against its benchmark's data
    items: dict[str, Item] = {it.key: it for it in (stored_items(store, run["run_id"]) or load_items(bench, spec))}
    judged = {(c.item_key, c.sample, c.turn): c.completion for c in store.completions(run["run_id"], "judge")}
    # as the run made them: the judge's stored answers; an answer that needs one the run has not: judge-missing
    session = ScoringSession(bench, spec.mode)
    n = 0
    for c in store.completions(run["run_id"], "answer"):
        item = items.get(c.item_key)
        if item is None:
            v = Verdict(Outcome.UNANSWERABLE, method=Method.ITEM_MISSING,
                        detail={"error": f"item {c.item_key} is not in the current data"})
        else:
            v = session.verdict(item, c.completion, judged.get((c.item_key, c.sample, c.turn)))
        store.put_verdict(run["run_id"], c.item_key, c.sample, c.turn, SCORER, v, buffered=True)
        n += 1
    store.flush()
    return n
