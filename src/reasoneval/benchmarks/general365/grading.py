r"""General365 rule grading: final-answer extraction and the rule side of the hybrid grader.

* number / interval: the ``\boxed{}`` answer (:func:`final_boxes`): the box(es) after the last "The final
  answer is", else every box of the answer (boxes in the reasoning before the marker do not count). The
  paper mandates one boxed final answer, so several *different* boxes (``$\boxed{4}$ or $\boxed{5}$``)
  pass only if each of them is right (the same answer boxed twice, or written two ways); compared with math-verify in a time-bounded worker (``scoring/mathverify.py``) at the
  item's ``float_round`` precision; intervals as intervals.
* single/multiple choice: decided by rule only when the answer is nothing but option letters.
* text: a normalised exact match can confirm an answer; anything else is left to the judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...scoring.extract import boxed, boxed_spans, clip
from ...scoring.mathverify import equivalent
from .data import CHOICE_TYPES, NUMERIC_TYPES

_MARKER_RE = re.compile(r"the\s+final\s+answer\s+is\s*[:：]?", re.IGNORECASE)
_WRAP_RE = re.compile(r"^\\(?:text|textbf|mathrm|mathbf)\s*\{(.*)\}$", re.DOTALL)
_SEP_WORDS_RE = re.compile(r"\b(?:OPTIONS?|CHOICES?|AND)\b|和")
_WS_RE = re.compile(r"\s+")
_SPLIT_RE = re.compile(r"[\s,，、;；&()\[\]（）.:：]+")
MAX_FINAL_CHARS = 1000
JUDGE_TAIL_CHARS = 4000


@dataclass(frozen=True)
class RuleResult:
    decided: bool | None  # True correct, False wrong, None: the rule cannot tell
    reason: str


def _segment_after_marker(text: str) -> str | None:
    last = None
    for m in _MARKER_RE.finditer(text):
        last = m
    return None if last is None else text[last.end():]


def _unwrap(ans: str) -> str:
    s = ans.strip()
    for _ in range(3):
        s = s.strip().rstrip(".。").strip().strip("$").strip()
        if s.startswith("\\(") and s.endswith("\\)") or s.startswith("\\[") and s.endswith("\\]"):
            s = s[2:-2]
        b = boxed(s) if s.startswith("\\boxed") or s.startswith("\\fbox") else None
        if b is not None:
            s = b
        m = _WRAP_RE.match(s.strip())
        if m:
            s = m.group(1)
    return s.strip().rstrip(".").strip()


def final_boxes(text: str) -> tuple[list[str], str]:
    """The distinct boxed final answers (whitespace ignored, first spelling kept, in order) and where they came
    from: "boxed-after-marker" (every box after the last "The final answer is") | "boxed" (anywhere: no
    marker, or no box after it) | "none"."""
    text = clip(text)
    seg = _segment_after_marker(text)
    spans = boxed_spans(seg) if seg is not None else []
    if spans:
        chosen, source = [c for _, _, c in spans], "boxed-after-marker"
    else:
        chosen, source = [c for _, _, c in boxed_spans(text)], "boxed"
    seen: dict[str, str] = {}
    for c in chosen:
        seen.setdefault(_WS_RE.sub("", c), c.strip())
    return (list(seen.values()), source) if seen else ([], "none")


def extract_final(text: str, answer_type: str) -> tuple[str | None, str]:
    """(final answer or None, where it came from: "boxed-after-marker" | "boxed" | "marker" | "none").

    Numbers and intervals: the first of :func:`final_boxes` (the caller checks for several)."""
    text = clip(text)
    if answer_type in NUMERIC_TYPES:
        boxes, source = final_boxes(text)
        return (boxes[0], source) if boxes else (None, "none")
    seg = _segment_after_marker(text)
    if seg is not None:
        line = seg.strip()
        end = line.find("\n\n")
        line = (line if end < 0 else line[:end])[:MAX_FINAL_CHARS]
        ans = _unwrap(line)
        if ans:
            return ans, "marker"
    b = boxed(text)
    if b is not None and _unwrap(b):
        return _unwrap(b), "boxed"
    return None, "none"


def judge_answer(text: str, extracted: str | None) -> str:
    """What the judge sees as the student's answer: the final answer, else the response's tail."""
    if extracted:
        return extracted
    t = text.strip()
    return t if len(t) <= JUDGE_TAIL_CHARS else "[...] " + t[-JUDGE_TAIL_CHARS:]


def choice_letters(s: str) -> frozenset[str] | None:
    """The option letters of an answer made only of letters ("B", "A, C", "(A) and (D)", "ACD"), else None."""
    if len(s) > 200:
        return None
    t = _SEP_WORDS_RE.sub(",", _unwrap(s).upper())
    tokens = [x for x in _SPLIT_RE.split(t) if x]
    if tokens and all(len(x) == 1 and "A" <= x <= "Z" for x in tokens):
        return frozenset(tokens)
    if len(tokens) == 1 and 1 < len(tokens[0]) <= 6 and all("A" <= c <= "J" for c in tokens[0]) \
            and len(set(tokens[0])) == len(tokens[0]):
        return frozenset(tokens[0])
    return None


def normalize_text(s: str) -> str:
    s = _unwrap(s).lower()
    s = re.sub(r"\\[a-z]+\s*", " ", s)
    s = re.sub(r"[\s{}\"'`“”‘’]+", " ", s)
    return s.strip(" .;:,!?。；：，！？")


def rule_check(answer_type: str, gold: str, extracted: str, float_round: int | None,
               timeout: float | None = 5.0) -> RuleResult:
    if answer_type in NUMERIC_TYPES:
        r = equivalent(gold, extracted, kind="interval" if answer_type == "interval" else "number",
                       float_round=float_round, timeout=timeout)
        return RuleResult(r.equal, r.reason)
    if answer_type in CHOICE_TYPES:
        g, p = choice_letters(gold), choice_letters(extracted)
        if g is not None and p is not None:
            return RuleResult(g == p, "letters-equal" if g == p else "letters-differ")
    if normalize_text(gold) and normalize_text(gold) == normalize_text(extracted):
        return RuleResult(True, "text-equal")
    return RuleResult(None, "needs-judge")
