r"""MMLU's prompt and answer extraction.

The prompt is simple-evals' zero-shot CoT multiple-choice template (OpenAI simple-evals ``common.py``
``QUERY_TEMPLATE_MULTICHOICE``; open-r1 sends the same wording for GPQA), with the four options as ``A) ...``.
FineReason states no MMLU prompt. The question is inserted as released (outer whitespace kept, as simple-evals
formats it). :func:`extract_letter` is the *corrected* reading (``official`` is simple-evals' own,
:mod:`reasoneval.scoring.simple_evals`): the letter of the LAST ``Answer: X`` line (simple-evals takes the first
match; a reasoning model may write "Answer: A?" mid-way, so the final one counts here), then a lone
``\boxed{X}`` (one letter in every box); anything else is unextractable.
"""

from __future__ import annotations

import re

from ...core.values import Prompt
from ...scoring.extract import choice_letter, clip

LETTERS = "ABCD"
TEMPLATE = (
    "Answer the following multiple choice question. The last line of your response should be of the following "
    "format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step before "
    "answering.\n\n{Question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}")
MODES = ("zero-shot-cot",)
PROMPT_VERSION = "simple-evals-mc-v2"  # v2: the question verbatim (outer whitespace kept)
_ANSWER_RE = re.compile(r"answer\s*+\**+\s*+[:：]\s*+\**+\s*+\$?\s*+(?:\\(?:boxed|text|textbf)\s*+\{\s*+)?"
                        r"[\(\[]?\s*+([A-Da-d])(?![A-Za-z0-9_])", re.IGNORECASE)


def build_prompt(question: str, choices: list[str]) -> Prompt:
    return Prompt.chat(TEMPLATE.format(Question=question, **dict(zip(LETTERS, choices, strict=True))))


def extract_letter(text: str) -> tuple[str | None, str]:
    """(letter or None, which rule found it: "answer-line" | "boxed" | "none")."""
    last = None
    for m in _ANSWER_RE.finditer(clip(text)):
        last = m
    if last is not None:
        return last.group(1).upper(), "answer-line"
    got = choice_letter(text, LETTERS)
    return (got, "boxed") if got is not None else (None, "none")
