r"""Math rewards: the completion's final answer against the gold final answer, decided by math-verify.

The comparison is the project's time-bounded one (``scoring/mathverify.py``): LaTeX parsing only (no
``parse_expr``/``sympify`` on model text), in a sandbox worker killed after ``timeout`` seconds. A
completion without a final answer, an unparseable one, or one that runs out of time scores 0. An answer denoting
a number too large to compute (``9^{9^{9}}``: :mod:`.magnitude`) scores 0 at once (reason ``too-large``) unless
it is written as the gold is, so it never occupies a worker.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..scoring.mathverify import MathResult, equivalent
from .extract import final_answer
from .magnitude import too_large

DEFAULT_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class MathReward:
    reward: float
    reason: str  # correct | no-answer | no-gold | math-verify's reason (not-equal, unparseable-pred, timeout, ...)
    pred: str | None = None


def math_verdict(gold: str | None, text: str, timeout: float = DEFAULT_TIMEOUT_S) -> MathReward:
    """Reward 1.0 when the final answer of ``text`` equals ``gold`` (itself a final answer, e.g. ``18``,
    ``\frac{1}{2}``)."""
    if gold is None or not gold.strip():
        return MathReward(0.0, "no-gold")
    pred = final_answer(text)
    if pred is None:
        return MathReward(0.0, "no-answer")
    if too_large(pred):
        same = "".join(pred.split()) == "".join(gold.split())
        return MathReward(1.0 if same else 0.0, "correct" if same else "too-large", pred)
    res: MathResult = equivalent(gold, pred, timeout=timeout)
    return MathReward(1.0 if res.equal else 0.0, "correct" if res.equal else res.reason, pred)


def gold_of(gold: str | None, answer: str | None) -> str | None:
    """The gold final answer of a row: its ``gold`` column, else read from its worked ``answer``."""
    if gold is not None and str(gold).strip():
        return str(gold)
    return final_answer(answer) if isinstance(answer, str) else None
