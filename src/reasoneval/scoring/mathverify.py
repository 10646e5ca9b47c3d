r"""Time-bounded math equivalence with math-verify, safe on untrusted model text.

* Only LaTeX parsing is used (math-verify's ``LatexExtractionConfig``: antlr grammar -> SymPy objects).
  ``ExprExtractionConfig`` is never used: it goes through SymPy's ``parse_expr``, which evaluates
  Python. Nothing here calls ``sympify``/``parse_expr``/``eval`` on model text.
* math-verify's own timeouts use ``signal.alarm`` (main thread only), so they are switched off and
  every comparison runs in a worker process that is killed when it overruns (``9^{9^{9^{9}}}`` makes
  SymPy compute for ever). Workers are reused; callers in any thread may use :func:`equivalent`.
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
import json
import logging
import os
import queue
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

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
# A worker is ``python -m reasoneval.scoring.mathverify`` speaking JSON lines on stdin/stdout: it does
# not depend on the parent's start method or ``__main__`` and is killed outright when it overruns.

def _result_to_json(r: MathResult) -> str:
    return json.dumps({"equal": r.equal, "reason": r.reason, "pred": r.pred, "gold": r.gold})


def _serve() -> None:  # pragma: no cover - runs in the child process
    import warnings

    warnings.filterwarnings("ignore")
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    try:
        compare("1", "1")  # import and warm up before saying ready
    except Exception:
        pass
    proto.write('"ready"\n')
    for line in sys.stdin:
        try:
            a = json.loads(line)
            res = compare(a["gold"], a["pred"], a["kind"], a["float_round"])
        except Exception as e:  # a SymPy failure on odd input is a verdict, not a crash
            res = MathResult(None, "error", None, f"{e.__class__.__name__}: {e}"[:300])
        proto.write(_result_to_json(res) + "\n")


class _Worker:
    def __init__(self) -> None:
        src = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reasoneval.scoring.mathverify"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True, encoding="utf-8",
            bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="mathverify-reader").start()
        if self._next(STARTUP_TIMEOUT_S) != '"ready"':
            self.kill()
            raise RuntimeError("math-verify worker did not start")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def _next(self, timeout: float) -> str | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, args: dict[str, Any], timeout: float) -> MathResult | None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(args) + "\n")
        self.proc.stdin.flush()
        line = self._next(timeout)
        if line is None:
            return None
        d = json.loads(line)
        return MathResult(d["equal"], d["reason"], d["pred"], d["gold"])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass


class _Pool:
    def __init__(self, size: int) -> None:
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)

    def run(self, args: dict[str, Any], timeout: float) -> MathResult:
        with self._slots:
            with self._lock:
                w = self._idle.pop() if self._idle else None
            if w is None or not w.alive():
                w = _Worker()
            try:
                res = w.call(args, timeout)
            except (OSError, ValueError) as e:
                w.kill()
                return MathResult(None, "error", None, f"worker failed: {e}")
            if res is None:
                w.kill()
                return MathResult(None, "timeout")
            with self._lock:
                self._idle.append(w)
            return res

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()


_POOL = _Pool(MAX_WORKERS)
atexit.register(_POOL.close)


def equivalent(gold: str, pred: str, kind: Kind = "number", float_round: int | str | None = None,
               timeout: float | None = DEFAULT_TIMEOUT_S) -> MathResult:
    """Equivalence of a gold answer and an extracted model answer (LaTeX, without ``\\boxed``).

    Runs in a worker process killed after ``timeout`` seconds (``None`` runs in-process, for trusted input).
    """
    if len(pred) > MAX_ANSWER_CHARS:
        return MathResult(None, "too-long")
    if timeout is None:
        return compare(gold, pred, kind, float_round)
    return _POOL.run({"gold": gold, "pred": pred, "kind": kind, "float_round": float_round}, timeout)


def shutdown() -> None:
    """Stop the worker processes (they are daemons and also stop with the interpreter)."""
    _POOL.close()


if __name__ == "__main__":  # pragma: no cover - the worker process
    _serve()
