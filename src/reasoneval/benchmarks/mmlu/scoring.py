r"""MMLU's two scorings and the cause of each difference between them.

* ``official``: simple-evals' reading (:mod:`reasoneval.scoring.simple_evals`) of the raw output: its
  normalisation, then the first match of its multilingual ``Answer:`` pattern (prefixes in its order), the
  letter normalised and compared with the gold as is (``a`` is not ``A``). No ``<think>`` removal, no
  truncation (a cut-off output is read as it is, ``detail["cut_off"]`` beside the verdict).
* ``corrected``: this harness's reading of the answer without its reasoning (:func:`.prompts.extract_letter`):
  the LAST ``Answer: X`` line (case-insensitive letter, ``(B)`` / ``[B]`` / ``**B**`` / ``\boxed{B}`` forms,
  full-width colon), then a lone ``\boxed{X}``; a cut-off output has no answer.
"""

from __future__ import annotations

from typing import Any

from ...core.response import Response
from ...core.values import Outcome, Verdict
from ...core.verdicts import Method
from ...scoring import simple_evals
from .prompts import extract_letter


def _verdict(letter: str | None, gold: object, method: str, detail: dict[str, Any]) -> Verdict:
    if letter is None:
        return Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, detail)
    return Verdict(Outcome.CORRECT if letter == gold else Outcome.INCORRECT, letter, method, detail)


def official_verdict(gold: object, response: Response, detail: dict[str, Any]) -> Verdict:
    letter = simple_evals.extract_letter(response.raw)
    d = {**detail, "scoring": "official", "found_by": "simple-evals" if letter is not None else "none",
         "reads_cut_output": True, "cut_off": response.truncated}
    return _verdict(letter, gold, Method.RULE, d)


def corrected_verdict(gold: object, text: str, detail: dict[str, Any]) -> Verdict:
    letter, how = extract_letter(text)
    return _verdict(letter, gold, Method.RULE, {**detail, "scoring": "corrected", "found_by": how})


def diff_cause(gold: object, response: Response) -> str:
    """Why official and corrected scoring disagree on this output (``rescore --diff``)."""
    causes: list[str] = []
    raw = simple_evals.extract_letter(response.raw)
    final = simple_evals.extract_letter(response.final)
    if response.truncated:
        causes.append("cut-off output: corrected gives it no answer, official reads what is there")
    if raw != final and (raw == gold) != (final == gold):
        causes.append(f"<think> removed: simple-evals reads {raw!r} in the raw text, {final!r} without the "
                      "reasoning")
    if not response.truncated:
        cor, how = extract_letter(response.final)
        if (final == gold) != (cor == gold):
            causes.append(f"extraction: simple-evals reads {final!r} (the first match of its pattern after its "
                          f"normalisation, letter as written), corrected reads {cor!r} ({how}: the last "
                          "'Answer: X', any case, brackets, full width, then a lone box)")
    return "; ".join(causes) or "several readings together"
