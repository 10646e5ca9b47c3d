"""The KOR-Bench reference evaluator (``evaluate_response_vs_answer``, spec §5.2), re-implemented.

:func:`judge` dispatches, in the reference order:

1. logic rule 5 (circuit diagrams): ``;``-separated parts, sorted, vs the raw gold's;
2. logic: ``logic``-cleaned extraction equality;
3. operation idx 178/179: sorted ``(≥|≤) number`` inequalities;
4. operation rule 18: sorted word characters vs the inner gold;
5. operation rules 23/24/25 (matrices): lists of unsigned integers (the reference ignores minus signs);
6. operation idx in :data:`SYMPY_IDX`: SymPy comparison (:mod:`.mathexpr`; needs antlr4 4.11);
7. operation whose gold contains ``"or"``: sorted ``or``-separated alternatives;
8. puzzle: per-rule comparator on the inner ``[[...]]`` texts (:mod:`.puzzle_rules`);
9. default: ``clean``-extraction equals the raw gold (cipher, counterfactual, other operation items).

The SymPy case returns a :class:`Judgement` with ``pending`` set; :func:`finish` (one item) or the batch
rescorer (many items, in parallel) completes it. :class:`ScoringPolicy` switches the fixes of the
corrected mode (:mod:`.score_corrected`); :data:`OFFICIAL` switches them all off.

What the official evaluator reads (``eval_utils.evaluate_responses``): the record's ``response`` as the model
wrote it, ``<think>`` sections and all, whether or not it was cut off. :func:`answer_text` picks that text (or,
with ``strip_think``, the text without its reasoning); with ``cut_off_unanswered`` off the verdict carries
``reads_cut_output`` (the runner keeps it) and ``cut_off`` (the truncation flag shown beside it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reasoneval.scoring.latexcmp import LatexCanonicalizer

from . import brackets
from .brackets import NULL
from .latex_seed import canonicalizer
from .mathexpr import MathResult, MathTask, make_task, resolve
from .puzzle_rules import compare as puzzle_compare

SYMPY_IDX: frozenset[str] = frozenset(
    str(i)
    for i in (
        18, 73, 74, 77, 94, 115, 116, 117, 121, 122, 123, 125, 131, 132, 134, 135, 136, 141, 143, 149, 145, 146,
        147, *range(151, 157), 160, 161, 162, 164, 165, 166, 170, 206, 209, *range(211, 216), 217, 218,
    )
)  # fmt: skip
MATRIX_RULES = frozenset({"23", "24", "25"})
_INEQ = re.compile(r"(≥|≤)\s*([-]?\d+\.?\d*)")
_UNSIGNED = re.compile(r"\d+")
_SIGNED = re.compile(r"-?\d+")
_NON_WORD = re.compile(r"\W+")
_TEXT_OR = re.compile(r"\\text\{or\}")
_STOP = "\n### Question"  # where a base model starts inventing the next few-shot block


@dataclass(frozen=True)
class ScoringPolicy:
    name: str = "official"
    match: brackets.Policy = "first"  # which [[...]] match counts
    stop_raw_completions: bool = False  # cut three-shot completions at the next "### Question"
    matrix_signed: bool = False  # rules 23-25: compare signed integers
    exact_arithmetic: bool = False  # puzzles 9/10: exact fractions, "÷" accepted, numbers (not chars) matched
    clean_gold: bool = False  # clean the gold like the response before comparing (default and logic-5 paths)
    sympy_equiv: bool = False  # SymPy: also accept simplify(a - b) == 0
    lenient_puzzle: bool = False  # puzzles 2-5: normalise gold the same way; anagram needs a whole word
    real_idx_in_mixed: bool = False  # mixed sets: pass the sample idx, not the position
    strip_think: bool = False  # read the answer without its <think> sections (official: the raw text)
    cut_off_unanswered: bool = False  # a cut-off output (token limit, unclosed <think>) has no answer


OFFICIAL = ScoringPolicy()


def answer_text(raw: str, final: str, policy: ScoringPolicy) -> str:
    """The text a policy reads: the raw output (official), or its final answer with reasoning removed."""
    return final if policy.strip_think else raw


def cut_off_detail(cut_off: bool, policy: ScoringPolicy) -> dict[str, bool]:
    """The verdict detail that keeps an official verdict on a cut-off output (the flag stays beside it)."""
    return {} if policy.cut_off_unanswered else {"reads_cut_output": True, "cut_off": cut_off}


@dataclass
class Judgement:
    correct: bool | None  # None while a SymPy comparison is pending
    method: str
    extracted: str | None  # None: nothing extractable
    pending: MathTask | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def unanswerable(self) -> bool:
        return self.extracted is None


def _ext(text: str, level: str, policy: ScoringPolicy) -> str:
    return brackets.extract(text, level, policy.match)


def _none_if_null(s: str) -> str | None:
    return None if s == NULL else s


def judge(response: object, answer: str, category: str, rule_id: str, idx: str,
          policy: ScoringPolicy = OFFICIAL, *, raw_completion: bool = False) -> Judgement:
    """Verdict for one response, or a pending SymPy comparison (operation only)."""
    if not isinstance(response, str):
        return Judgement(False, "no-response", None, notes=["response is not text (API error record)"])
    if raw_completion and policy.stop_raw_completions and _STOP in response:
        response = response.split(_STOP, 1)[0]
    if category == "logic":
        return _logic(response, answer, rule_id, policy)
    if category == "operation":
        return _operation(response, answer, rule_id, idx, policy)
    if category == "puzzle":
        resp = brackets.inner(response, policy.match)
        fixed = policy.exact_arithmetic if rule_id in ("9", "10") else policy.lenient_puzzle
        ok, method = puzzle_compare(rule_id, resp, brackets.inner(answer), fixed)
        return Judgement(ok, method, _none_if_null(resp))
    return default_compare(response, answer, policy)


def default_compare(response: object, answer: str, policy: ScoringPolicy = OFFICIAL) -> Judgement:
    resp = _ext(response, "clean", policy) if isinstance(response, str) else NULL
    gold = brackets.extract(answer, "clean") if policy.clean_gold else answer
    return Judgement(resp == gold, "exact", _none_if_null(resp))


def real_life(response: object, real_life_answer: str, policy: ScoringPolicy = OFFICIAL) -> bool:
    """Counterfactual: does the response pick the real-world option?"""
    return bool(default_compare(response, real_life_answer, policy).correct)


def _logic(response: str, answer: str, rule_id: str, policy: ScoringPolicy) -> Judgement:
    resp = _ext(response, "logic", policy)
    if rule_id == "5":
        gold = brackets.extract(answer, "logic") if policy.clean_gold else answer
        return Judgement(sorted(resp.split(";")) == sorted(gold.split(";")), "logic:circuit", _none_if_null(resp))
    return Judgement(resp == brackets.extract(answer, "logic"), "logic", _none_if_null(resp))


def _operation(response: str, answer: str, rule_id: str, idx: str, policy: ScoringPolicy) -> Judgement:
    if idx in ("178", "179"):
        resp = _ext(response, "clean", policy)
        got = sorted("".join(m) for m in _INEQ.findall(resp))
        want = sorted("".join(m) for m in _INEQ.findall(answer))
        return Judgement(got == want, "operation:inequality", _none_if_null(resp))
    if rule_id == "18":
        resp = _ext(response, "clean", policy)
        gold = brackets.inner(answer)
        ok = "".join(sorted(_NON_WORD.sub("", resp))) == "".join(sorted(_NON_WORD.sub("", gold)))
        return Judgement(ok, "operation:set", _none_if_null(resp))
    if rule_id in MATRIX_RULES:
        resp = _ext(response, "clean", policy)
        rx = _SIGNED if policy.matrix_signed else _UNSIGNED
        ok = [int(x) for x in rx.findall(resp)] == [int(x) for x in rx.findall(answer)]
        return Judgement(ok, "operation:matrix", _none_if_null(resp))
    if idx in SYMPY_IDX:
        resp = _ext(response, "math", policy)
        gold = brackets.extract(answer, "math")
        task = make_task(resp, gold, equiv=policy.sympy_equiv)
        if isinstance(task, bool):
            return Judgement(task, "operation:sympy-shortcut", _none_if_null(resp))
        return Judgement(None, "operation:sympy", resp, pending=task)
    if "or" in answer:
        resp = _TEXT_OR.sub("or", _ext(response, "clean", policy))
        if resp == NULL:
            return Judgement(False, "operation:or", None)
        gold = brackets.extract(answer, "clean")
        ok = sorted(x.strip() for x in resp.strip("[]").split("or")) == sorted(
            x.strip() for x in gold.strip("[]").split("or"))
        return Judgement(ok, "operation:or", resp)
    return default_compare(response, answer, policy)


def apply_math(j: Judgement, result: MathResult) -> Judgement:
    j.correct = result.correct
    j.method = f"operation:{result.note}"
    j.pending = None
    if result.failed:
        j.notes.append("latex parse failed: " + "; ".join(repr(s) for s in result.failed))
    return j


def finish(j: Judgement, lc: LatexCanonicalizer | None = None, deadline: float | None = None) -> Judgement:
    """Complete a pending SymPy comparison synchronously, within ``deadline`` (``time.monotonic()``; default:
    the one-verdict budget from now)."""
    if j.pending is None:
        return j
    return apply_math(j, resolve(j.pending, lc or canonicalizer(), deadline))


def evaluate(response: object, answer: str, category: str, rule_id: str, idx: str,
             policy: ScoringPolicy = OFFICIAL, lc: LatexCanonicalizer | None = None) -> bool:
    """Reference ``evaluate_response_vs_answer`` as a plain boolean."""
    return bool(finish(judge(response, answer, category, rule_id, idx, policy), lc).correct)
