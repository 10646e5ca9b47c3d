"""Corrected scoring: the reference evaluator with its known defects fixed (opt-in; official is the default).

Each fix is one :class:`~.score_official.ScoringPolicy` switch, so :func:`explain` can say exactly which
fix(es) flip a verdict, by re-judging with the official policy plus one fix at a time:

* ``match="last"``: the model's final ``[[...]]`` answer counts, not the first one (models often quote the
  format example, a partial result or a rejected attempt before their answer);
* ``stop_raw_completions``: three-shot (base model) completions are cut where the model starts writing the
  next ``### Question`` block, so its invented follow-up answers are not taken as its answer;
* ``matrix_signed``: matrix answers (operation rules 23-25) keep minus signs (the reference drops them, so
  ``((-1,2),(3,4))`` equals ``((1,2),(3,4))``);
* ``exact_arithmetic``: 24-points / Math-Path answers are evaluated exactly (``8/(3-8/3)`` is 24, the float
  ``eval`` says 23.999999999999993), ``÷`` and ``·`` are operators, and number tokens (not characters) must
  match the given numbers;
* ``clean_gold``: where the reference compares a cleaned response with a raw gold, the gold is cleaned too;
* ``sympy_equiv``: expressions equal after ``simplify(a - b) == 0`` count even if their simplified forms
  differ structurally;
* ``lenient_puzzle``: puzzle golds are normalised like responses; an Anagram answer must be a whole listed
  word (the reference accepts any substring of the gold, including the empty answer);
* ``real_idx_in_mixed``: mixed sets pass the sample idx to the per-question evaluator (the reference passes
  the position, which mis-routes Operation special cases); bare JSON answer values are accepted as answers;
* ``strip_think``: the answer is read without its ``<think>`` sections (the reference reads the raw text, so a
  ``[[...]]`` in the reasoning is its first match, and mixed mode's ``{`` ... ``}`` span may start inside it);
* ``cut_off_unanswered``: an output cut off by the token limit or inside an unclosed ``<think>`` has no
  answer (the reference knows no truncation and scores what is there; official verdicts carry the flag
  ``cut_off`` beside them instead).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from .score_official import OFFICIAL, ScoringPolicy

CORRECTED = ScoringPolicy(
    name="corrected", match="last", stop_raw_completions=True, matrix_signed=True, exact_arithmetic=True,
    clean_gold=True, sympy_equiv=True, lenient_puzzle=True, real_idx_in_mixed=True, strip_think=True,
    cut_off_unanswered=True,
)  # fmt: skip

FIX_DESCRIPTIONS: dict[str, str] = {
    "match": "last [[...]] match instead of the first",
    "stop_raw_completions": "three-shot completion cut at the next '### Question'",
    "matrix_signed": "matrix minus signs respected",
    "exact_arithmetic": "exact arithmetic / '÷' / number tokens in puzzle 9-10",
    "clean_gold": "gold cleaned like the response",
    "sympy_equiv": "symbolic equivalence simplify(a-b)==0",
    "lenient_puzzle": "puzzle gold normalised / anagram must be a whole word",
    "real_idx_in_mixed": "mixed: sample idx instead of position; bare JSON values accepted",
    "strip_think": "<think> sections removed before extraction (the reference reads the raw text)",
    "cut_off_unanswered": "cut-off output (token limit / unclosed <think>) has no answer",
}


def policy(name: str) -> ScoringPolicy:
    if name == "official":
        return OFFICIAL
    if name == "corrected":
        return CORRECTED
    raise ValueError(f"unknown scoring {name!r}; use 'official' or 'corrected'")


def single_fixes() -> list[tuple[str, ScoringPolicy]]:
    """The official policy with exactly one corrected switch turned on, for each switch."""
    out = []
    for f in fields(ScoringPolicy):
        if f.name == "name":
            continue
        value = getattr(CORRECTED, f.name)
        if value != getattr(OFFICIAL, f.name):
            out.append((f.name, replace(OFFICIAL, name=f"official+{f.name}", **{f.name: value})))
    return out


@dataclass(frozen=True)
class Disagreement:
    model: str
    category: str
    mode: str
    idx: str
    official: bool
    corrected: bool
    official_extracted: str | None
    corrected_extracted: str | None
    reason: str

    def line(self) -> str:
        arrow = f"{'correct' if self.official else 'wrong'} -> {'correct' if self.corrected else 'wrong'}"
        return (f"{self.model}\t{self.category}\t{self.mode}\t{self.idx}\t{arrow}\t"
                f"official={self.official_extracted!r} corrected={self.corrected_extracted!r}\t{self.reason}")


def explain(verdict_under: Callable[[ScoringPolicy], bool]) -> str:
    """Which fixes flip the official verdict (``verdict_under(policy)`` re-judges one item).

    First the fixes that flip it on their own; if none does, the fixes the corrected verdict needs
    (turning any one of them off restores the official verdict).
    """
    base = verdict_under(OFFICIAL)
    flips = [FIX_DESCRIPTIONS[name] for name, pol in single_fixes() if verdict_under(pol) != base]
    if flips:
        return "; ".join(flips)
    needed = [FIX_DESCRIPTIONS[name] for name, _ in single_fixes()
              if verdict_under(replace(CORRECTED, **{name: getattr(OFFICIAL, name)})) == base]
    return "together: " + " + ".join(needed) if needed else "several fixes together"
