"""Turning a stored completion into a verdict: errors, reasoning sections and truncation first.

The runner builds the :class:`~reasoneval.core.response.Response` view once per completion; the scorer and
the judge both get that view (``run``, ``score`` and ``rescore`` all come through here).
"""

from __future__ import annotations

from ..core.benchmark import Benchmark
from ..core.response import Response
from ..core.types import Completion, Item, Outcome, Verdict
from ..core.verdicts import Method


def response_of(c: Completion) -> Response:
    return Response.of(c.text, c.finish_reason, c.reasoning)


def score_completion(bench: Benchmark, item: Item, c: Completion, mode: str,
                     response: Response | None = None) -> Verdict:
    if c.error is not None:
        return Verdict(Outcome.ERROR, method=Method.ERROR, detail={"error": c.error})
    r = response or response_of(c)
    try:
        v = bench.score_response(item, r, mode)
    except Exception as e:  # a scorer bug must not lose the run; it is recorded on the item
        return Verdict(Outcome.UNANSWERABLE, method=Method.SCORER_ERROR,
                       detail={"error": f"{e.__class__.__name__}: {e}"})
    if r.truncated:
        return Verdict(Outcome.UNANSWERABLE, extracted=v.extracted, method=Method.TRUNCATED,
                       detail={**v.detail, "would_be": v.outcome.value, "scored_by": str(v.method)})
    return v


def judged_verdict(bench: Benchmark, item: Item, r: Response, mode: str, verdict: Verdict,
                   judge: Completion | None) -> Verdict:
    """The verdict after the judge's answer (``judge``), or ``verdict`` when there is none."""
    if judge is None:
        return verdict
    if judge.error is not None:
        return Verdict(Outcome.ERROR, verdict.extracted, Method.JUDGE_ERROR, {"error": judge.error})
    return bench.score_judged(item, r.final, mode, judge.text)
