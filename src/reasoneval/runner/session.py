"""One scoring session: completion -> response view -> scorer -> judge gate -> verdict.

Every path that turns a completion into a verdict goes through a :class:`ScoringSession`: ``run`` (the engine,
local or on Ray), ``score`` (a stored run, :mod:`reasoneval.runner.score_stored`), ``rescore`` and ``import``
(outside completions, :mod:`reasoneval.runner.rescore_outside`). So the judge gate (which answers go to the judge), the
verdict of a judge's reply, of a failed judge call and of an answer that needs a judge none was given for
(``judge-missing``) are written once, and one stored completion gets one verdict whichever path reads it.

The judge is asked through an :data:`Ask` (a prompt in, the judge's completion out): the engine's caches and
stores the call, ``rescore`` batches its calls, ``score`` only reads the judge completions a run stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..core.benchmark import BatchScorer, Benchmark
from ..core.response import Response
from ..core.values import Completion, GenParams, Item, Outcome, Prompt, Verdict
from ..core.verdicts import Method
from .verdict_of import response_of, score_completion, score_later, score_now

#: the generation settings of every judge call
JUDGE_PARAMS = GenParams(max_tokens=1024, temperature=0.0)
#: asks the judge one prompt; a failed call is a completion with ``error`` set, never an exception
Ask = Callable[[Prompt], Awaitable[Completion]]


def judge_missing(verdict: Verdict) -> Verdict:
    """The verdict of an answer that needs the judge when no judge answer is there (none configured, or a
    stored run made without one): undecided, with the rule's own verdict kept in the detail."""
    return Verdict(Outcome.UNANSWERABLE, verdict.extracted, Method.JUDGE_MISSING,
                   {**verdict.detail, "rule_outcome": verdict.outcome.value, "rule_method": str(verdict.method),
                    "note": "this answer needs the LLM judge (--judge)"})


class ScoringSession:
    """The verdicts of one benchmark's completions in one mode (the benchmark with its options)."""

    def __init__(self, bench: Benchmark, mode: str) -> None:
        self.bench, self.mode = bench, mode
        #: whether the benchmark may ask a judge at all (else the gate is never opened)
        self.may_judge = type(bench).judge_prompt is not Benchmark.judge_prompt

    # ------------------------------------------------------------------ the scorer

    def view(self, c: Completion) -> Response:
        """The one response view of an output: the scorer and the judge both get it."""
        return response_of(c)

    def score(self, item: Item, c: Completion, response: Response | None = None) -> Verdict:
        """The scorer's verdict (errors and truncation first), before any judge."""
        return score_completion(self.bench, item, c, self.mode, response)

    def score_now(self, item: Item, c: Completion, response: Response) -> Verdict | None:
        """``score``'s verdict if the benchmark can make it without waiting, else None."""
        return score_now(self.bench, item, c, self.mode, response)

    def score_later(self, batch: BatchScorer | None, item: Item, c: Completion,
                    response: Response | None = None) -> Callable[[], Verdict]:
        """``score`` through a benchmark's batch scorer: starts the verdict now, returns its finisher."""
        return score_later(self.bench, batch, item, c, self.mode, response)

    # ------------------------------------------------------------------ the judge gate

    def judge_prompt(self, item: Item, c: Completion, response: Response, verdict: Verdict) -> Prompt | None:
        """The judge's prompt when this answer goes to the judge; None when the scorer's verdict stands (a
        failed or cut-off output, or an answer the benchmark's rules decide)."""
        if not self.may_judge or c.error is not None or verdict.method == Method.TRUNCATED:
            return None
        return self.bench.judge_prompt(item, response.final, self.mode)

    def judged(self, item: Item, response: Response, verdict: Verdict, judge: Completion | None) -> Verdict:
        """The verdict of an answer the gate sent to the judge, after the judge's completion (None: there is no
        judge answer)."""
        if judge is None:
            return judge_missing(verdict)
        if judge.error is not None:
            return Verdict(Outcome.ERROR, verdict.extracted, Method.JUDGE_ERROR, {"error": judge.error})
        return self.bench.score_judged(item, response.final, self.mode, judge.text)

    def after_judge(self, item: Item, c: Completion, response: Response, verdict: Verdict,
                    judge: Completion | None) -> Verdict:
        """The final verdict given the scorer's and a stored judge answer (None: none stored)."""
        if self.judge_prompt(item, c, response, verdict) is None:
            return verdict
        return self.judged(item, response, verdict, judge)

    async def ajudge(self, item: Item, c: Completion, response: Response, verdict: Verdict,
                     ask: Ask | None) -> Verdict:
        """The final verdict, asking the judge (``ask``) when the gate sends the answer to it; ``ask`` None:
        no judge is configured."""
        prompt = self.judge_prompt(item, c, response, verdict)
        if prompt is None:
            return verdict
        return self.judged(item, response, verdict, None if ask is None else await ask(prompt))

    # ------------------------------------------------------------------ both together

    def verdict(self, item: Item, c: Completion, judged: Completion | None = None) -> Verdict:
        """A completion's verdict with a stored judge answer (``judged``; None: none stored)."""
        response = self.view(c)
        return self.after_judge(item, c, response, self.score(item, c, response), judged)

    async def averdict(self, item: Item, c: Completion, ask: Ask | None) -> Verdict:
        """A completion's verdict, asking the judge through ``ask`` when it is needed."""
        response = self.view(c)
        return await self.ajudge(item, c, response, self.score(item, c, response), ask)
