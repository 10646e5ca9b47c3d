"""Self-correction (spec §4.5): up to 5 model calls, oracle feedback, extracted answers replayed.

Protocol: round 0 is the zero-shot prompt. After a wrong answer the conversation is re-sent as
``[user: prompt, assistant: extract(response_0, "basic"), user: feedback, assistant: extract(response_1), ...]``
ending with the feedback message (optionally preceded by the item's needle sentences). It stops at the first
correct answer, on an API error, or after 5 calls.

Raw official files (``<model>_<category>_self-correction.jsonl``) hold the last round in ``prompt`` /
``response`` and the earlier rounds in ``history`` (``{"0": {prompt, response: <extracted>,
response_origin: <full text>}, ...}``). Re-scoring judges every round with the current scorer. As in the
reference evaluation, an item's self-correction verdict is that of its final response; per-round accuracy
is that of the answer standing after each round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import brackets
from .prompts import self_correction_feedback

MAX_CALLS = 5


def replayed_answer(response: str) -> str:
    """What the assistant turn of the history holds: the ``basic`` extraction (e.g. ``[[24]]`` or ``NULL``)."""
    return brackets.extract(response, "basic")


def conversation(first_prompt: str, responses: Sequence[str], needle: Sequence[str] | None = None
                 ) -> tuple[list[tuple[str, str]], str]:
    """``(history pairs, next user message)`` after the given wrong responses (at least one)."""
    if not responses:
        raise ValueError("self-correction needs at least one previous response")
    feedback = self_correction_feedback(needle)
    history: list[tuple[str, str]] = []
    user = first_prompt
    for r in responses:
        history.append((user, replayed_answer(r)))
        user = feedback
    return history, feedback


def rounds_of(rec: dict[str, Any]) -> list[object]:
    """Full responses of every round of a raw self-correction record, in order."""
    hist = rec.get("history") or {}
    if not isinstance(hist, dict):
        raise ValueError("'history' must be an object")
    try:
        keys = sorted(hist, key=int)
    except ValueError as e:
        raise ValueError("'history' keys must be round numbers") from e
    if keys != [str(i) for i in range(len(keys))]:
        raise ValueError(f"'history' rounds are not 0..{len(keys) - 1}: {keys}")
    out: list[object] = []
    for k in keys:
        entry = hist[k]
        if not isinstance(entry, dict) or "response_origin" not in entry:
            raise ValueError(f"history round {k} has no 'response_origin'")
        out.append(entry["response_origin"])
    out.append(rec.get("response"))
    if len(out) > MAX_CALLS:
        raise ValueError(f"{len(out)} rounds, more than {MAX_CALLS}")
    return out


@dataclass
class RoundStats:
    """Per-round accumulation over items.

    ``standing[k]``: items whose answer on record after round k (their last answer if the conversation had
    already stopped) is correct; round 4 is the final self-correction accuracy. ``first_correct[k]``: items
    first judged correct at round k (for correction rates).
    """

    n_items: int = 0
    standing: list[int] = field(default_factory=lambda: [0] * MAX_CALLS)
    first_correct: list[int] = field(default_factory=lambda: [0] * MAX_CALLS)

    def add(self, verdicts: Sequence[bool]) -> None:
        if not verdicts:
            raise ValueError("no rounds")
        self.n_items += 1
        for k in range(MAX_CALLS):
            self.standing[k] += int(verdicts[min(k, len(verdicts) - 1)])
        for k, v in enumerate(verdicts):
            if v:
                self.first_correct[k] += 1
                break

    def merge(self, other: RoundStats) -> None:
        self.n_items += other.n_items
        self.standing = [a + b for a, b in zip(self.standing, other.standing, strict=True)]
        self.first_correct = [a + b for a, b in zip(self.first_correct, other.first_correct, strict=True)]

    def accuracies(self) -> list[float]:
        """Accuracy (%) of the standing answers after rounds 0..4."""
        return [100 * x / self.n_items if self.n_items else 0.0 for x in self.standing]

    def correction_rates(self) -> list[float]:
        """For rounds 1..4: items first correct at round k / items not yet correct before round k (%)."""
        wrong = self.n_items - self.first_correct[0]
        out = []
        for k in range(1, MAX_CALLS):
            out.append(100 * self.first_correct[k] / wrong if wrong else 0.0)
            wrong -= self.first_correct[k]
        return out
