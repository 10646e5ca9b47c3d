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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from reasoneval.scoring.latexcmp import Canon, LatexCanonicalizer

from .brackets import NULL


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
        return MathResult(task.resp == task.gold, "fallback:" + ("gold" if any(not c.ok for c in gold) else "response"),
                          tuple(bad))
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


def schedule(task: MathTask, lc: LatexCanonicalizer) -> Future[MathResult]:
    out: Future[MathResult] = Future()

    def fail(e: BaseException) -> None:
        if not out.done():
            out.set_exception(e)

    def after_resp(gold: list[Canon], resp: list[Canon]) -> None:
        try:
            res = decide(task, gold, resp)
            if res.correct or not task.equiv or task.or_mode or res.note != "sympy":
                out.set_result(res)
                return
            eq = lc.submit_equiv(task.resp, task.gold)
            eq.add_done_callback(
                lambda f: out.set_result(MathResult(f.result().ok and f.result().value == "1", "sympy-equiv")))
        except BaseException as e:  # noqa: BLE001
            fail(e)

    def after_gold(gold: list[Canon]) -> None:
        try:
            if any(not c.ok for c in gold):
                out.set_result(decide(task, gold, []))
                return
            _Join([lc.submit(s) for s in task.resp_parts], lambda resp: after_resp(gold, resp))
        except BaseException as e:  # noqa: BLE001
            fail(e)

    _Join([lc.submit(s) for s in task.gold_parts], after_gold)
    return out


def resolve(task: MathTask, lc: LatexCanonicalizer) -> MathResult:
    return schedule(task, lc).result()
