r"""The SymPy comparison of Operation answers (reference ``compare_math_expressions``), split so that it can run
in batches: :func:`make_task` decides what can be decided without SymPy, :func:`schedule` resolves the rest
through a :class:`~reasoneval.scoring.latexcmp.LatexCanonicalizer` (sandboxed, cached, parallel).

Reference semantics (spec §5.2 case 6), on ``math``-cleaned response and gold:

* response ``"NULL"`` -> wrong;
* gold contains ``"or"``: both split on ``"or"``; equal iff the *sets* of ``simplify(parse_latex(part))`` are equal;
* otherwise: ``simplify(parse_latex(resp)) == simplify(parse_latex(gold))`` (structural ``==``);
* any parse/simplify exception -> plain string equality of the cleaned texts.

Shortcuts that cannot change that verdict: identical texts are equal without SymPy (parsing is
deterministic), and when a gold part fails to parse the response is never parsed (the fallback applies).
Timeouts and crashed workers are treated like exceptions (the reference would have hung) and reported.

One verdict has one time budget (:data:`VERDICT_BUDGET_S`), however many ``or`` parts the answer has: parts
not canonicalised by then fail with status ``budget`` and the verdict falls back to string equality
(``fallback:budget``), so an answer of 400 power towers costs seconds, not 400 sandbox timeouts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from reasoneval.scoring.latexcmp import Canon, LatexCanonicalizer

from .brackets import NULL

VERDICT_BUDGET_S = 10.0  # wall-clock budget of one SymPy verdict, all parts together


@dataclass(frozen=True)
class MathTask:
    resp: str
    gold: str
    or_mode: bool
    resp_parts: tuple[str, ...]
    gold_parts: tuple[str, ...]
    equiv: bool = False  # corrected mode: fall back to simplify(a - b) == 0 when structures differ


@dataclass(frozen=True)
class MathResult:
    correct: bool
    note: str  # "sympy", "sympy-equiv", "fallback:<why>"
    failed: tuple[str, ...] = ()  # strings whose parse/simplify failed


def make_task(resp: str, gold: str, *, equiv: bool = False) -> bool | MathTask:
    """Either the verdict (decided without SymPy) or the work still to do."""
    if resp == NULL:
        return False
    if resp == gold:
        return True
    if "or" in gold:
        return MathTask(resp, gold, True, tuple(resp.split("or")), tuple(gold.split("or")), equiv)
    return MathTask(resp, gold, False, (resp,), (gold,), equiv)


def decide(task: MathTask, gold: Sequence[Canon], resp: Sequence[Canon]) -> MathResult:
    bad = [s for s, c in zip(task.gold_parts + task.resp_parts, [*gold, *resp], strict=False) if not c.ok]
    if bad:
        why = ("budget" if any(c.status == "budget" for c in [*gold, *resp])
               else "gold" if any(not c.ok for c in gold) else "response")
        return MathResult(task.resp == task.gold, "fallback:" + why, tuple(bad))
    if task.or_mode:
        return MathResult({c.value for c in resp} == {c.value for c in gold}, "sympy")
    return MathResult(resp[0].value == gold[0].value, "sympy")


class _Join:
    """Calls ``then`` once all futures are done (from whichever thread finishes last)."""

    def __init__(self, futs: Sequence[Future[Canon]], then: Callable[[list[Canon]], None]) -> None:
        self.futs = list(futs)
        self.then = then
        self.left = len(self.futs)
        self.lock = threading.Lock()
        if not self.futs:
            then([])
        for f in self.futs:
            f.add_done_callback(self._one)

    def _one(self, _: Future[Canon]) -> None:
        with self.lock:
            self.left -= 1
            done = self.left == 0
        if done:
            self.then([f.result() for f in self.futs])


def schedule(task: MathTask, lc: LatexCanonicalizer, deadline: float | None = None) -> Future[MathResult]:
    """The comparison as a future; ``deadline`` (``time.monotonic()``) bounds all its sandbox work, and all
    its parts are one group in the sandbox's round-robin (a bomb beside it cannot eat its budget)."""
    out: Future[MathResult] = Future()
    group = object()  # this verdict

    def fail(e: BaseException) -> None:
        if not out.done():
            out.set_exception(e)

    def after_resp(gold: list[Canon], resp: list[Canon]) -> None:
        try:
            res = decide(task, gold, resp)
            if res.correct or not task.equiv or task.or_mode or res.note != "sympy":
                out.set_result(res)
                return
            eq = lc.submit_equiv(task.resp, task.gold, deadline, group)
            eq.add_done_callback(
                lambda f: out.set_result(MathResult(f.result().ok and f.result().value == "1", "sympy-equiv")))
        except BaseException as e:  # noqa: BLE001
            fail(e)

    def after_gold(gold: list[Canon]) -> None:
        try:
            if any(not c.ok for c in gold):
                out.set_result(decide(task, gold, []))
                return
            _Join([lc.submit(s, deadline, group) for s in task.resp_parts], lambda resp: after_resp(gold, resp))
        except BaseException as e:  # noqa: BLE001
            fail(e)

    _Join([lc.submit(s, deadline, group) for s in task.gold_parts], after_gold)
    return out


def resolve(task: MathTask, lc: LatexCanonicalizer, deadline: float | None = None) -> MathResult:
    """The verdict, within ``deadline`` (default: :data:`VERDICT_BUDGET_S` from now)."""
    if deadline is None:
        deadline = time.monotonic() + VERDICT_BUDGET_S
    try:
        return schedule(task, lc, deadline).result(timeout=max(0.0, deadline - time.monotonic()) + 5.0)
    except TimeoutError:  # belt and braces: the sandbox enforces the deadline itself
        return MathResult(task.resp == task.gold, "fallback:budget")
