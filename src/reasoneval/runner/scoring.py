"""Turning a stored completion into a verdict: errors, reasoning sections and truncation first."""

from __future__ import annotations

from ..core.benchmark import Benchmark
from ..core.types import Completion, Item, Outcome, Verdict
from ..scoring.extract import strip_think


def score_completion(bench: Benchmark, item: Item, c: Completion, mode: str) -> Verdict:
    if c.error is not None:
        return Verdict(Outcome.ERROR, method="error", detail={"error": c.error})
    text = strip_think(c.text)
    try:
        v = bench.score(item, text, mode)
    except Exception as e:  # a scorer bug must not lose the run; it is recorded on the item
        return Verdict(Outcome.UNANSWERABLE, method="scorer-error",
                       detail={"error": f"{e.__class__.__name__}: {e}"})
    if c.truncated or ("<think>" in c.text and "</think>" not in c.text):
        return Verdict(Outcome.UNANSWERABLE, extracted=v.extracted, method="truncated",
                       detail={**v.detail, "would_be": v.outcome.value, "scored_by": v.method})
    return v
