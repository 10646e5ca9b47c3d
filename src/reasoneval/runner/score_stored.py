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
    stored = run["spec"]
    return RunSpec(stored["benchmark"], stored["subset"], stored["mode"], stored["model"],
                   GenParams.from_json(stored["params"]), stored["samples"], stored["seed"], stored["limit"],
                   stored.get("judge"), stored.get("options") or {}, stored.get("data_version", ""),
                   **limit_of(stored), origin=stored.get("origin"),
                   model_id=stored.get("model_id") or stored["model"])


def limit_of(spec: dict[str, Any]) -> dict[str, Any]:
    """``limit_mode`` / ``limit_seed`` of a stored spec: a limited run without ``limit_sample`` took the first N
    items (all runs made before the sample existed)."""
    sample = spec.get("limit_sample")
    if isinstance(sample, dict):
        return {"limit_mode": str(sample.get("mode", "sample")), "limit_seed": int(sample.get("seed", 0))}
    return {"limit_mode": "first", "limit_seed": 0}


def rescore_run(store: RunStore, run: dict[str, Any]) -> int:
    bench = registry.for_run(run)  # the run's own options: scoring policy, data, ...
    spec = spec_of(run)
    # an imported run is re-graded against the items it was imported with (release golds), a run made here
    # against its benchmark's data
    items: dict[str, Item] = {item.key: item
                              for item in (stored_items(store, run["run_id"]) or load_items(bench, spec))}
    judged = {(row.item_key, row.sample, row.turn): row.completion
              for row in store.completions(run["run_id"], "judge")}
    # as the run made them: the judge's stored answers; an answer that needs one the run has not: judge-missing
    session = ScoringSession(bench, spec.mode)
    n = 0
    for row in store.completions(run["run_id"], "answer"):
        item = items.get(row.item_key)
        if item is None:
            verdict = Verdict(Outcome.UNANSWERABLE, method=Method.ITEM_MISSING,
                              detail={"error": f"item {row.item_key} is not in the current data"})
        else:
            verdict = session.verdict(item, row.completion, judged.get((row.item_key, row.sample, row.turn)))
        store.put_verdict(run["run_id"], row.item_key, row.sample, row.turn, SCORER, verdict, buffered=True)
        n += 1
    store.flush()
    return n
