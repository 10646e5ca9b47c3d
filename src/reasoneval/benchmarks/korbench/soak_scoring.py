"""KOR-Bench's official scoring of an Operation item for the runner soak (``reasoneval.testing.soak``): the
soak's LaTeX items are scored as Operation idx 18 of rule 2 (gold with "or", SymPy deciding equivalence)."""

from __future__ import annotations

from reasoneval.scoring.latexcmp import LatexCanonicalizer
from reasoneval.testing.soak import MathScorer

from .score_official import finish, judge


def _operation(text: str, gold: str, lc: LatexCanonicalizer | None, deadline: float) -> tuple[str | None, bool, str]:
    j = finish(judge(text, gold, "operation", "2", "18"), lc, deadline)
    return j.extracted, bool(j.correct), j.method


#: the soak's math items scored by the official Operation path; SymPy-decided verdicts are ``operation:sympy...``
#: and those stopped by the budget ``operation:fallback...``
OPERATION = MathScorer(_operation, ("operation:sympy", "operation:fallback"))
