"""Cipher stepwise sub-questions (spec §4.4): 50 questions of cipher rules 1, 9, 11, 18, 23 split into 345
teacher-forced sub-steps, each asked as its own zero-shot cipher prompt and scored with the default cipher
comparison against the step's answer. Error rate per type = 1 - accuracy over that type's steps.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .data import SUBQUESTION_TYPES, KorData, SubQuestion, SubStep

UNTYPED = "(untyped)"
STEP_SUFFIX = "Please give your answer"


def step_prompt_question(sub: SubQuestion, step: SubStep) -> str:
    """The ``### Question`` text of a sub-step prompt."""
    return f"{sub.input}\n\n{step.description}"


def all_steps(data: KorData) -> list[tuple[SubQuestion, SubStep]]:
    return [(q, s) for q in data.subquestions for s in q.steps]


@dataclass
class TypeStats:
    total: Counter[str] = field(default_factory=Counter)
    correct: Counter[str] = field(default_factory=Counter)

    def add(self, step_type: str | None, ok: bool) -> None:
        t = step_type or UNTYPED
        self.total[t] += 1
        self.correct[t] += int(ok)

    def types(self) -> list[str]:
        known = [t for t in SUBQUESTION_TYPES if t in self.total]
        return known + sorted(t for t in self.total if t not in SUBQUESTION_TYPES)

    def error_rate(self, t: str) -> float:
        n = self.total[t]
        return 100 * (1 - self.correct[t] / n) if n else 0.0

    def accuracy(self) -> float:
        n = sum(self.total.values())
        return 100 * sum(self.correct.values()) / n if n else 0.0
