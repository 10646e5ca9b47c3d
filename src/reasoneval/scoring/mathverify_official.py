r"""math-verify's own pipeline, as open-r1's ``math_500`` metric calls it (``official`` scoring of boxed-answer
math benchmarks).

open-r1's evaluation (``src/open_r1/evaluate.py``, Feb.-Mar. 2025: lighteval's
``multilingual_extractive_match_metric`` as ``latex_gold_metric``), at the pinned math-verify (``math_metric``
is math-verify's packaging of the same metric):

* gold: ``parse(gold_text, [LatexExtractionConfig()])`` (open-r1 passes MATH's ``solution``, its boxed answer
  is what is extracted);
* prediction: ``parse(response, [ExprExtractionConfig(), LatexExtractionConfig(boxed_match_priority=0)])`` on
  the response as the model returned it (no ``<think>`` removal, no truncation);
* verdict: ``verify(gold, prediction, float_rounding=5)`` (``precision=5``); nothing extracted is wrong.

Every call runs in the time-bounded worker pool of :mod:`.mathverify` (math-verify's own ``signal`` timeouts
are off; an overrun kills the worker: the reference's 5 s timeout also makes the answer wrong). Safety: the
expression extraction (``ExprExtractionConfig``) hands SymPy's ``parse_expr`` only what its regex admits, digits,
``.``, whitespace, ``+ - * × / ^ ( ) ÷``; a guard installed in the worker refuses anything else, so no name,
attribute or call can be formed, and the worker is killed on overrun and memory-limited. This module is the only
place that calls it, and only in the worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .mathverify import DEFAULT_TIMEOUT_S, _pool
from .sandbox import RemoteError, SandboxTimeout, WorkerCrashed

PRECISION = 5  # open-r1's ``precision=5``
_EXPR_CHARS = re.compile(r"[\d.\s+\-*×/^()÷]*")


@dataclass(frozen=True)
class OfficialMath:
    correct: bool
    extracted: str | None  # what math-verify extracted from the response (its string form); None: nothing
    reason: str  # equal | not-equal | unextractable | no-gold | timeout | error


def _guard_parse_expr() -> None:
    """Wrap math-verify's ``parse_expr`` call so that only arithmetic text can reach it (idempotent)."""
    import math_verify.parser as mp

    inner = mp.parse_expr_cached
    if getattr(inner, "_reasoneval_guard", False):
        return

    def guarded(expr: str) -> Any:
        if not _EXPR_CHARS.fullmatch(expr.replace("**", "^")):
            raise ValueError("refused: not an arithmetic expression")
        return inner(expr)

    guarded._reasoneval_guard = True  # type: ignore[attr-defined]
    mp.parse_expr_cached = guarded  # type: ignore[assignment]


def _as_text(x: Any) -> str:
    return x if isinstance(x, str) else str(x)


def official_local(gold_text: str, response: str) -> OfficialMath:
    """The reference verdict in this process (no time bound: the worker calls it; tests on trusted input)."""
    import logging

    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    _guard_parse_expr()
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    gold = parse(gold_text, [LatexExtractionConfig()], parsing_timeout=None)  # type: ignore[arg-type]
    if not gold:
        return OfficialMath(False, None, "no-gold")
    pred = parse(response, [ExprExtractionConfig(), LatexExtractionConfig(boxed_match_priority=0)],
                 parsing_timeout=None)  # type: ignore[arg-type]
    if not pred:
        return OfficialMath(False, None, "unextractable")
    ok = bool(verify(gold, pred, float_rounding=PRECISION, timeout_seconds=None))
    shown = _as_text(pred[-1]) if isinstance(pred[-1], str) else _as_text(pred[0])
    return OfficialMath(ok, shown[:500], "equal" if ok else "not-equal")


def _official_safe(gold_text: str, response: str) -> OfficialMath:
    try:
        return official_local(gold_text, response)
    except Exception as e:  # noqa: BLE001 - the reference's own errors make the answer wrong
        return OfficialMath(False, None, f"error: {e.__class__.__name__}")


def official(gold_text: str, response: str, timeout: float = DEFAULT_TIMEOUT_S) -> OfficialMath:
    """The reference verdict of ``response`` (the raw model output) against ``gold_text``, time-bounded."""
    pool = _pool()
    try:
        res = pool.submit(_official_safe, gold_text, response, timeout=max(timeout, 1e-3)).result()
    except (SandboxTimeout, WorkerCrashed) as e:
        if isinstance(e, WorkerCrashed) and pool.broken:
            raise RuntimeError(f"math-verify worker pool failed: {pool.broken}") from e
        return OfficialMath(False, None, "timeout")
    except (RemoteError, RuntimeError) as e:
        return OfficialMath(False, None, f"error: {e}"[:200])
    assert isinstance(res, OfficialMath)
    return res
