"""Turning a stored completion into a verdict: errors, reasoning sections and truncation first.

The runner builds the :class:`~reasoneval.core.response.Response` view once per completion; the scorer and
the judge both get that view. The judge gate on top of these: :mod:`reasoneval.runner.session`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.benchmark import BatchScorer, Benchmark
from ..core.response import Response
from ..core.values import Completion, Item, Outcome, Verdict
from ..core.verdicts import Method


def response_of(c: Completion) -> Response:
    return Response.of(c.text, c.finish_reason, c.reasoning)


def score_completion(bench: Benchmark, item: Item, c: Completion, mode: str,
                     response: Response | None = None) -> Verdict:
    if c.error is not None:
        return Verdict(Outcome.ERROR, method=Method.ERROR, detail={"error": c.error})
    view = response or response_of(c)
    try:
        verdict = bench.score_response(item, view, mode)
    except Exception as e:  # a scorer bug must not lose the run; it is recorded on the item
        return _scorer_error(e)
    return _viewed(verdict, view)


def score_now(bench: Benchmark, item: Item, c: Completion, mode: str, response: Response) -> Verdict | None:
    """``score_completion``'s verdict if the benchmark can make it without waiting (``Benchmark.score_now``),
    else None."""
    if c.error is not None:
        return score_completion(bench, item, c, mode, response)
    try:
        verdict = bench.score_now(item, response, mode)
    except Exception as e:  # noqa: BLE001 - as in score_completion
        return _scorer_error(e)
    return None if verdict is None else _viewed(verdict, response)


def score_later(bench: Benchmark, batch: BatchScorer | None, item: Item, c: Completion, mode: str,
                response: Response | None = None) -> Callable[[], Verdict]:
    """``score_completion`` through a benchmark's batch scorer: starts the verdict now, returns its finisher."""
    if batch is None or c.error is not None:
        verdict = score_completion(bench, item, c, mode, response)
        return lambda: verdict
    view = response or response_of(c)
    try:
        done = batch.submit(item, view, mode)
    except Exception as e:  # noqa: BLE001 - as in score_completion
        err = _scorer_error(e)
        return lambda: err

    def finish() -> Verdict:
        try:
            return _viewed(done(), view)
        except Exception as e:  # noqa: BLE001
            return _scorer_error(e)

    return finish


def _scorer_error(e: Exception) -> Verdict:
    return Verdict(Outcome.UNANSWERABLE, method=Method.SCORER_ERROR, detail={"error": f"{e.__class__.__name__}: {e}"})


def _viewed(verdict: Verdict, response: Response) -> Verdict:
    """The verdict as the response view allows: a cut-off output has no answer, unless the benchmark's
    reading scores cut-off outputs as they are (``detail["reads_cut_output"]``: an official
    reading whose reference code knows no truncation)."""
    if response.truncated and not verdict.detail.get("reads_cut_output"):
        return Verdict(Outcome.UNANSWERABLE, extracted=verdict.extracted, method=Method.TRUNCATED,
                       detail={**verdict.detail, "would_be": verdict.outcome.value,
                               "scored_by": str(verdict.method)})
    return verdict

