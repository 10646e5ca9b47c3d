r"""Final answers of math problems with one gold answer (GSM8K, MATH): extraction and the verdict.

* Prompt: ``BOXED_COT_TEMPLATE``, the zero-shot chain-of-thought template that asks for the format read here.
  It is open-r1's MATH template (``src/open_r1/evaluate.py`` of Feb. 2025, lighteval task ``math_500``,
  adapted by open-r1 from OpenAI's simple-evals), used verbatim.
* Extraction: the last ``\boxed{...}`` (the prompts ask for one); without a box, the text after the last
  "the (final) answer is" or GSM8K's ``####`` on its line. Anything else is *unextractable*.
* Verdict: first a quick rule that needs no SymPy (the same string after light normalisation, or two plain
  decimal numbers: ``\$1,000.00`` = ``1000``), so most verdicts are made at once (``quick_verdict``);
  otherwise math-verify in a time-bounded worker process (:mod:`reasoneval.scoring.mathverify`).
  A comparison that times out is *unanswerable* (the rule could not decide), an answer math-verify cannot
  parse is *incorrect*.

Nothing here evaluates model text; every scan is linear in the text's length.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any

from ..core.values import Outcome, Verdict
from ..core.verdicts import Method
from .extract import boxed, clip
from .mathverify import DEFAULT_TIMEOUT_S, equivalent

BOXED_COT_TEMPLATE = (
    "Solve the following math problem efficiently and clearly.  The last line of your response should be of the "
    "following format: 'Therefore, the final answer is: $\\boxed{{ANSWER}}$. I hope it is correct' (without "
    "quotes) where ANSWER is just the final number or expression that solves the problem. Think step by step "
    "before answering.\n\n{Question}")
MAX_ANSWER_CHARS = 300
#: decimal places a decimal answer must match (open-r1's math_500 metric: lighteval's ``precision=5``)
FLOAT_ROUND = 5
MAX_PLAIN_DIGITS = 100  # longer numbers go to math-verify
_MARKER_RE = re.compile(r"(?:final\s++answer|the\s++answer)\s++is\s*+[:：]?|####", re.IGNORECASE)
_HOPE_RE = re.compile(r"\.?\s*I hope it is correct\.?\s*$", re.IGNORECASE)
_WRAP_RE = re.compile(r"^\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}$")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$")


def boxed_cot_text(question: str) -> str:
    """The user message for one problem."""
    return BOXED_COT_TEMPLATE.format(Question=question)


def final_answer(text: str) -> tuple[str | None, str]:
    """(answer or None, where it came from: "boxed" | "marker" | "none")."""
    text = clip(text)
    b = boxed(text)
    if b is not None and b.strip():
        return b.strip()[:MAX_ANSWER_CHARS * 4], "boxed"
    last = None
    for m in _MARKER_RE.finditer(text):
        last = m
    if last is not None:
        line = text[last.end():].lstrip().split("\n", 1)[0][:MAX_ANSWER_CHARS]
        ans = _clean(_HOPE_RE.sub("", line))
        if ans:
            return ans, "marker"
    return None, "none"


def _clean(s: str) -> str:
    s = s.strip()
    for _ in range(3):
        s = s.strip().rstrip(".").strip().strip("$").strip()
        if s.startswith(("\\(", "\\[")) and s.endswith(("\\)", "\\]")):
            s = s[2:-2]
        m = _WRAP_RE.match(s.strip())
        if m:
            s = m.group(1)
    return s.strip()


def plain_number(s: str) -> Decimal | None:
    r"""A decimal number written plainly (``-3``, ``1,000``, ``\$18.50``, ``25\%``), else None."""
    t = _clean(s)
    for junk in ("\\$", "$", "\\%", "%", "\\!", "{,}", "\\,", " "):
        t = t.replace(junk, "")
    t = _THOUSANDS_RE.sub("", t)
    if len(t) > MAX_PLAIN_DIGITS or not _NUMBER_RE.match(t):
        return None
    try:
        return Decimal(t)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid decimals
        return None


def _norm(s: str) -> str:
    return "".join(_clean(s).replace("\\left", "").replace("\\right", "").replace("\\!", "").split()).lower()


def quick_equal(gold: str, pred: str) -> bool | None:
    """True/False when decided without SymPy; None when math-verify has to decide."""
    if _norm(gold) == _norm(pred) and _norm(pred):
        return True
    g, p = plain_number(gold), plain_number(pred)
    if g is not None and p is not None:  # as math-verify rounds: both sides at FLOAT_ROUND places
        with localcontext() as ctx:
            ctx.prec = 2 * MAX_PLAIN_DIGITS
            q = Decimal(1).scaleb(-FLOAT_ROUND)
            return g.quantize(q, ROUND_HALF_UP) == p.quantize(q, ROUND_HALF_UP)
    return None


def quick_verdict(gold: str, text: str, detail: dict[str, Any] | None = None) -> Verdict | None:
    """The verdict when it needs no SymPy (unextractable, or decided by ``quick_equal``), else None."""
    ans, how = final_answer(text)
    d = {**(detail or {}), "found_by": how}
    if ans is None:
        return Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, d)
    ok = quick_equal(gold, ans)
    if ok is None:
        return None
    return Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, ans, Method.RULE, {**d, "compared_by": "exact"})


def math_verdict(gold: str, text: str, detail: dict[str, Any] | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S) -> Verdict:
    """The verdict of one answer text (reasoning already removed) against ``gold`` (LaTeX, no box)."""
    quick = quick_verdict(gold, text, detail)
    if quick is not None:
        return quick
    ans, how = final_answer(text)
    assert ans is not None  # quick_verdict decides the unextractable case
    d = {**(detail or {}), "found_by": how, "compared_by": "math-verify"}
    res = equivalent(gold, ans, float_round=FLOAT_ROUND, timeout=timeout)
    d["math_verify"] = res.reason
    if res.equal is None and res.reason in ("timeout", "error", "unparseable-gold"):
        return Verdict(Outcome.UNANSWERABLE, ans, f"{Method.RULE}-{res.reason}", d)
    return Verdict(Outcome.CORRECT if res.equal else Outcome.INCORRECT, ans, Method.RULE, d)
