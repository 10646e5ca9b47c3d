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
are off; an overrun kills the worker: the reference's 5 s timeout also makes the answer wrong). Safety: no
``eval`` is involved. The expression extraction (``ExprExtractionConfig``) would hand SymPy's ``parse_expr``
(which ``eval``-s Python source) what its regex admits, digits, ``.``, whitespace, ``+ - * × / ^ ( ) ÷``; the
worker replaces math-verify's ``parse_expr_cached`` by :func:`.arith_expr.parse_arith`, our own parser of that
alphabet, which builds the same SymPy object (or fails where ``parse_expr`` fails) by calling SymPy's
constructors directly, and refuses any other text. The worker is also killed on overrun and memory-limited.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .arith_expr import parse_arith
from .mathverify import DEFAULT_TIMEOUT_S, _pool
from .sandbox import RemoteError, SandboxTimeout, WorkerCrashed

PRECISION = 5  # open-r1's ``precision=5``


@dataclass(frozen=True)
class OfficialMath:
    correct: bool
    extracted: str | None  # what math-verify extracted from the response (its string form); None: nothing
    reason: str  # equal | not-equal | unextractable | no-gold | timeout | error


def _install_parser() -> None:
    """Replace math-verify's ``parse_expr`` call by our eval-free parser of the same text (idempotent)."""
    import math_verify.parser as mp

    if getattr(mp.parse_expr_cached, "_reasoneval_parser", False):
        return

    def parse(expr: str) -> Any:
        return parse_arith(expr)

    parse._reasoneval_parser = True  # type: ignore[attr-defined]
    mp.parse_expr_cached = parse  # type: ignore[assignment]


def _as_text(x: Any) -> str:
    return x if isinstance(x, str) else str(x)


def official_local(gold_text: str, response: str) -> OfficialMath:
    """The reference verdict in this process (no time bound: the worker calls it; tests on trusted input)."""
    import logging

    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    _install_parser()
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
