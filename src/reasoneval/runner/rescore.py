"""Re-score a stored run: stored completions -> verdicts. Never calls a model."""

from __future__ import annotations

from typing import Any

from ..core import registry
from ..core.types import Item, Outcome, Verdict
from ..scoring.extract import strip_think
from ..store.sqlite import RunStore
from .engine import SCORER, load_items
from .scoring import score_completion
from .spec import RunSpec


def rescore_run(store: RunStore, run: dict[str, Any]) -> int:
    bench = registry.get(run["benchmark"])
    spec_d = run["spec"]
    from ..core.types import GenParams

    spec = RunSpec(spec_d["benchmark"], spec_d["subset"], spec_d["mode"], spec_d["model"],
                   GenParams.from_json(spec_d["params"]), spec_d["samples"], spec_d["seed"], spec_d["limit"],
                   spec_d.get("judge"), spec_d.get("options") or {},
                   spec_d.get("data_version", ""))
    items: dict[str, Item] = {it.key: it for it in load_items(bench, spec)}
    judged = {(c.item_key, c.sample, c.turn): c.completion for c in store.completions(run["run_id"], "judge")}
    n = 0
    for c in store.completions(run["run_id"], "answer"):
        item = items.get(c.item_key)
        if item is None:
            v = Verdict(Outcome.UNANSWERABLE, method="item-missing",
                        detail={"error": f"item {c.item_key} is not in the current data"})
        else:
            v = score_completion(bench, item, c.completion, spec.mode)
            jc = judged.get((c.item_key, c.sample, c.turn))
            if jc is not None and v.method != "truncated" and c.completion.error is None:
                v = (Verdict(Outcome.ERROR, v.extracted, "judge-error", {"error": jc.error}) if jc.error
                     else bench.score_judged(item, strip_think(c.completion.text), spec.mode, jc.text))
        store.put_verdict(run["run_id"], c.item_key, c.sample, c.turn, SCORER, v, buffered=True)
        n += 1
    store.flush()
    return n
