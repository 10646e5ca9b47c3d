r"""The two scorings of boxed-answer math benchmarks, and the cause of each difference between them.

* ``official``: math-verify's own pipeline as open-r1's ``math_500`` metric calls it
  (:mod:`.mathverify_official`), on the raw output (``<think>`` included; a cut-off output is read as it is,
  with ``detail["cut_off"]`` beside the verdict).
* ``corrected``: this harness's reading (:mod:`.math_answer`): reasoning removed, the last ``\boxed{}`` (or
  "the answer is"), a quick exact rule then math-verify on LaTeX only; a cut-off output has no answer.

:func:`diff_cause` names why the two disagree on one output: the ``<think>`` removal, the truncation, the
extraction (what each one read) or the comparison (same answer read, different equivalence).
"""

from __future__ import annotations

from typing import Any

from ..core.response import Response
from ..core.values import Outcome, Verdict
from ..core.verdicts import Method
from .math_answer import final_answer, math_verdict, quick_verdict
from .mathverify_official import official


def gold_text(gold: str, solution: str | None = None) -> str:
    r"""What the reference extracts the gold from: the worked solution where the release has one with its
    boxed answer (open-r1 passes MATH's ``solution``), else the answer in a box."""
    return solution if solution and "\\boxed" in solution else "\\boxed{" + gold + "}"


def official_verdict(gold_src: str, response: Response, detail: dict[str, Any] | None = None) -> Verdict:
    got = official(gold_src, response.raw)
    d = {**(detail or {}), "scoring": "official", "math_verify": got.reason, "reads_cut_output": True,
         "cut_off": response.truncated}
    if got.reason == "unextractable":
        return Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, d)
    return Verdict(Outcome.CORRECT if got.correct else Outcome.INCORRECT, got.extracted, Method.RULE, d)


def corrected_verdict(gold: str, response: Response, detail: dict[str, Any] | None = None) -> Verdict:
    return math_verdict(gold, response.final, {**(detail or {}), "scoring": "corrected"})


def corrected_now(gold: str, response: Response, detail: dict[str, Any] | None = None) -> Verdict | None:
    return quick_verdict(gold, response.final, {**(detail or {}), "scoring": "corrected"})


def diff_cause(gold: str, gold_src: str, response: Response) -> str:
    """Why official and corrected scoring disagree on this output (``rescore --diff``)."""
    causes: list[str] = []
    raw = official(gold_src, response.raw)
    if response.truncated:
        causes.append("cut-off output: corrected gives it no answer, official reads what is there")
    if response.final != response.raw:
        no_think = official(gold_src, response.final)
        if no_think.correct != raw.correct:
            causes.append(f"<think> removed: math-verify reads {raw.extracted!r} in the raw text, "
                          f"{no_think.extracted!r} without the reasoning")
    if not response.truncated:
        ans, how = final_answer(response.final)
        mv = official(gold_src, response.final)
        cor = corrected_verdict(gold, response)
        if mv.correct != cor.correct:
            if ans is None:
                causes.append(f"extraction: corrected finds no box or 'the answer is' (math-verify reads "
                              f"{mv.extracted!r}, its expression / last-number fallback)")
            elif mv.extracted is None or _same(mv.extracted, ans) is False:
                causes.append(f"extraction: math-verify reads {mv.extracted!r} (its first match by priority; "
                              f"several boxes as a set), corrected reads {ans!r} ({how}: the last box)")
            else:
                causes.append(f"comparison of {ans!r}: math-verify says {'equal' if mv.correct else 'not equal'}, "
                              f"corrected says {'equal' if cor.correct else 'not equal'} "
                              f"({cor.detail.get('compared_by', 'rule')}: percent, decimals, text answers)")
    return "; ".join(causes) or "several readings together"


def _same(a: str, b: str) -> bool:
    return "".join(a.split()).strip("$") == "".join(b.split()).strip("$")
