"""Multi-Q / Multi-R / Multi-RQ (spec §4.6): several rules and questions in one prompt, JSON answers.

Reference evaluation: the span from the first ``{`` to the last ``}`` (what a greedy ``{.*}`` finds), control
characters ``[\\x00-\\x1F\\x7F]`` removed, ``json.loads``; on failure every sub-question is wrong. The JSON
*values* are taken in insertion order (keys ignored), each turned into text with Python's ``str`` (so
``{"question1": [[3]]}`` answers ``"[[3]]"``, ``true`` answers ``"True"``, ``null`` answers ``"None"``), and
compared position by position with the single-question evaluator of each question's category. Reference
quirk, kept in official mode: the
position in the list (0-based here; no position ever reaches an Operation special-case idx) is passed as
``idx`` instead of the sample idx. ``pass_rate = correct / len(question_list)``; an item is correct when
all its sub-questions are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .data import KorData, MixedItem, Question
from .score_official import OFFICIAL, Judgement, ScoringPolicy, judge

_CONTROL = re.compile(r"[\x00-\x1F\x7F]")


def json_answers(text: object) -> list[Any] | None:
    """The answer values in order, or None when no JSON object can be read."""
    if not isinstance(text, str):
        return None
    first, last = text.find("{"), text.rfind("}")
    if first < 0 or last < first:
        return None
    try:
        obj = json.loads(_CONTROL.sub("", text[first : last + 1]))
    except (json.JSONDecodeError, RecursionError):
        return None
    return list(obj.values()) if isinstance(obj, dict) else None


def _as_response(value: Any, policy: ScoringPolicy) -> object:
    if not policy.real_idx_in_mixed:
        return str(value)  # the reference's extract_all_responses_from_json: str(value) of every JSON value
    if isinstance(value, bool) or value is None:
        return str(value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if "[" in text else f"[[{text}]]"


@dataclass
class MixedScore:
    parsed: bool
    judgements: list[Judgement]
    n_questions: int

    @property
    def n_correct(self) -> int:
        return sum(bool(j.correct) for j in self.judgements)

    @property
    def pass_rate(self) -> float:
        return self.n_correct / self.n_questions if self.n_questions else 0.0

    @property
    def correct(self) -> bool:
        return self.parsed and self.n_correct == self.n_questions


def questions_of(item: MixedItem, data: KorData) -> list[Question]:
    return [data.question(cat, idx) for cat, idx in item.questions]


def judge_mixed(response: object, questions: Sequence[Question], policy: ScoringPolicy = OFFICIAL) -> MixedScore:
    """Per-question judgements (SymPy ones may be pending; see :func:`.score_official.finish`)."""
    values = json_answers(response)
    if values is None:
        return MixedScore(False, [], len(questions))
    out: list[Judgement] = []
    for pos, (value, q) in enumerate(zip(values, questions, strict=False)):
        idx = q.idx if policy.real_idx_in_mixed else str(pos)
        out.append(judge(_as_response(value, policy), q.answer, q.category, q.rule_id, idx, policy))
    return MixedScore(True, out, len(questions))
