r"""Time-bounded math equivalence with math-verify, safe on untrusted model text.

* Only LaTeX parsing is used (math-verify's ``LatexExtractionConfig``: antlr grammar -> SymPy objects).
  ``ExprExtractionConfig`` is never used: it goes through SymPy's ``parse_expr``, which evaluates
  Python. Nothing here calls ``sympify``/``parse_expr``/``eval`` on model text.
* math-verify's own timeouts use ``signal.alarm`` (main thread only), so they are switched off and
  every comparison runs on the shared :class:`~reasoneval.scoring.sandbox.SandboxPool`, in a worker
  process that is killed when it overruns (``9^{9^{9^{9}}}`` makes SymPy compute for ever). Workers are
  reused; callers in any thread may use :func:`equivalent`.
* Precision: ``float_round`` = the minimum number of decimal places the answer must be accurate to;
  both sides are rounded to that many places when one of them is a decimal (3.1416 passes at 3 places
  against pi, 3.14 fails at 4). ``float_round`` <= 0 or missing means "no approximation annotated":
  :data:`DEFAULT_ROUND` places are used, so a rounded answer never passes against an exact integer.
* ``kind="interval"`` compares intervals as intervals: openness of each end and the endpoints must
  match; ``x \in (1,2]`` and ``1 < x \le 2`` are read as the set they denote, but a bare pair ``1, 2``
  is not an interval.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Literal

from .sandbox import RemoteError, SandboxPool, SandboxTimeout, WorkerCrashed

Kind = Literal["number", "interval"]
DEFAULT_ROUND = 4
DEFAULT_TIMEOUT_S = 5.0
STARTUP_TIMEOUT_S = 60.0
MAX_WORKERS = 2
MAX_ANSWER_CHARS = 2000


@dataclass(frozen=True)
class MathResult:
    equal: bool | None  # None: could not be decided (unparseable, timeout)
    reason: str  # equal | not-equal | unparseable-pred | unparseable-gold | not-an-interval | timeout | too-long | error
    pred: str | None = None  # the parsed prediction, as text
    gold: str | None = None


def effective_round(float_round: int | str | None) -> int:
    try:
        k = int(str(float_round).strip()) if float_round is not None else 0
    except ValueError:
        k = 0
    return k if k > 0 else DEFAULT_ROUND


# --------------------------------------------------------------------------- comparison (in the worker)

def _parse(latex: str) -> list[Any]:
    from math_verify import LatexExtractionConfig, parse

    wrapped = "\\boxed{" + latex + "}"
    return list(parse(wrapped, extraction_config=[LatexExtractionConfig(boxed_match_priority=0)],
                      parsing_timeout=None))


def _first_expr(parsed: list[Any]) -> Any | None:
    from sympy import Basic
    from sympy.matrices import MatrixBase

    for x in parsed:
        if isinstance(x, Basic | MatrixBase):
            return x
    return None


def _as_intervals(obj: Any) -> list[Any] | None:
    """The intervals a parsed answer denotes, or None when it is not a union of intervals."""
    from sympy import Eq, Interval, Set, Union
    from sympy.core.relational import Relational
    from sympy.logic.boolalg import Boolean

    if isinstance(obj, Eq) and isinstance(obj.rhs, Set):  # x \in (1,2] parses as Eq(x, Interval)
        obj = obj.rhs
    elif isinstance(obj, Relational | Boolean) and not isinstance(obj, Set):
        free = obj.free_symbols
        if len(free) != 1:
            return None
        try:
            obj = obj.as_set()
        except Exception:
            return None
    if isinstance(obj, Interval):
        return [obj]
    if isinstance(obj, Union) and all(isinstance(a, Interval) for a in obj.args):
        try:
            return sorted(obj.args, key=lambda iv: (float(iv.start), float(iv.end)))
        except TypeError:
            return None
    return None


def _rounded_eq(a: Any, b: Any, rounding: int) -> bool | None:
    """Plain real numbers with a decimal on either side: equal when both round to the same value at
    ``rounding`` places. (math-verify rounds too, but SymPy >= 1.13 says Integer(2) != Float(2.0), so
    its check fails 2 against 2.0001 at 3 places.) None when this rule does not apply."""
    from sympy import Float, Rational

    if not (getattr(a, "is_number", False) and getattr(b, "is_number", False)):
        return None
    if not (a.atoms(Float) or b.atoms(Float)):
        return None
    if a.is_infinite or b.is_infinite:
        return bool(a == b)
    try:
        if not (a.is_real and b.is_real):
            return None
        ra, rb = a.evalf(40).round(rounding), b.evalf(40).round(rounding)
        return bool(abs(ra - rb) < Rational(1, 2 * 10**rounding))
    except (TypeError, ValueError, AttributeError):
        return None


def _num_eq(a: Any, b: Any, rounding: int) -> bool:
    from math_verify import verify

    quick = _rounded_eq(a, b, rounding)
    if quick is not None:
        return quick
    if a.is_infinite or b.is_infinite:
        return bool(a == b)
    return bool(verify(a, b, float_rounding=rounding, timeout_seconds=None))


def compare(gold: str, pred: str, kind: Kind = "number", float_round: int | str | None = None) -> MathResult:
    """Decide equivalence in this process (no time bound: use :func:`equivalent` for model text)."""
    from math_verify import verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    if len(pred) > MAX_ANSWER_CHARS:
        return MathResult(None, "too-long")
    rounding = effective_round(float_round)
    g_all, p_all = _parse(gold), _parse(pred)
    g, p = _first_expr(g_all), _first_expr(p_all)
    if g is None:
        if p is None and pred.strip() and _norm(gold) == _norm(pred):
            return MathResult(True, "equal", pred.strip(), gold.strip())
        return MathResult(None, "unparseable-gold", None if p is None else str(p), gold)
    if p is None:
        return MathResult(None, "unparseable-pred", None, str(g))
    if kind == "interval":
        gi, pi = _as_intervals(g), _as_intervals(p)
        if gi is None:
            return MathResult(None, "unparseable-gold", str(p), str(g))
        if pi is None:
            return MathResult(False, "not-an-interval", str(p), str(g))
        ok = len(gi) == len(pi) and all(
            a.left_open == b.left_open and a.right_open == b.right_open
            and _num_eq(a.start, b.start, rounding) and _num_eq(a.end, b.end, rounding)
            for a, b in zip(gi, pi, strict=True))
        return MathResult(ok, "equal" if ok else "not-equal", str(p), str(g))
    quick = _rounded_eq(g, p, rounding)
    ok = quick if quick is not None else bool(
        verify(g, p, float_rounding=rounding, timeout_seconds=None))
    return MathResult(ok, "equal" if ok else "not-equal", str(p), str(g))


def _norm(s: str) -> str:
    return " ".join(s.replace("\\%", "%").replace("$", "").split()).lower()


# --------------------------------------------------------------------------- worker processes
# Comparisons run on the shared time-bounded pool (``scoring/sandbox.py``): a worker that overruns is
# killed and replaced. math-verify is imported and warmed up before a worker is ready, so that time never
# counts against a comparison's timeout.

PRELOAD = ("sympy", "math_verify")


def warm_up() -> None:
    """Import math-verify and run one comparison (in each worker, before it is ready)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            compare("1", "1")


def _init_worker() -> None:  # pragma: no cover - runs in the worker process
    import warnings

    warnings.filterwarnings("ignore")
    devnull = os.open(os.devnull, os.O_WRONLY)  # nothing a worker prints reaches the caller's terminal
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    warm_up()


def _compare_safe(gold: str, pred: str, kind: Kind, float_round: int | str | None) -> MathResult:
    """Worker side: a SymPy failure on odd input is a verdict, not a crash."""
    try:
        return compare(gold, pred, kind, float_round)
    except Exception as e:  # noqa: BLE001
        return MathResult(None, "error", None, f"{e.__class__.__name__}: {e}"[:300])


_POOL: SandboxPool | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> SandboxPool:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL.broken:  # a pool whose workers did not start is tried afresh
            _POOL = SandboxPool(MAX_WORKERS, preload=PRELOAD, initializer=_init_worker, memory_limit_mb=4096,
                                default_timeout=DEFAULT_TIMEOUT_S,
                                startup_timeout=STARTUP_TIMEOUT_S)
        return _POOL


def equivalent(gold: str, pred: str, kind: Kind = "number", float_round: int | str | None = None,
               timeout: float | None = DEFAULT_TIMEOUT_S) -> MathResult:
    """Equivalence of a gold answer and an extracted model answer (LaTeX, without ``\\boxed``).

    Runs in a worker process killed after ``timeout`` seconds (``None`` runs in-process, for trusted input).
    A comparison that overruns, or whose worker dies, is undecided: ``MathResult(None, "timeout")``.
    """
    if len(pred) > MAX_ANSWER_CHARS:
        return MathResult(None, "too-long")
    if timeout is None:
        return compare(gold, pred, kind, float_round)
    pool = _pool()
    try:
        res = pool.submit(_compare_safe, gold, pred, kind, float_round, timeout=max(timeout, 1e-3)).result()
    except (SandboxTimeout, WorkerCrashed) as e:
        if isinstance(e, WorkerCrashed) and pool.broken:
            raise RuntimeError(f"math-verify worker pool failed: {pool.broken}") from e
        return MathResult(None, "timeout")
    except (RemoteError, RuntimeError) as e:
        return MathResult(None, "error", None, f"worker failed: {e}")
    assert isinstance(res, MathResult)
    return res


def shutdown() -> None:
    """Stop the worker processes (they are daemons and also stop with the interpreter); a later
    comparison starts new ones."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown()


atexit.register(shutdown)
