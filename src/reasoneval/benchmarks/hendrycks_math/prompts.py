r"""MATH's prompt: open-r1's zero-shot CoT template for lighteval's ``math_500`` (``scoring/math_answer.py``),
verbatim; the answer is the last ``\boxed{}``, compared with the gold by math-verify."""

from __future__ import annotations

from ...core.values import Prompt
from ...scoring.math_answer import boxed_cot_text

MODES = ("zero-shot-cot",)
PROMPT_VERSION = "open-r1-math-v2"  # v2: the question verbatim (outer whitespace kept)


def build_prompt(problem: str) -> Prompt:
    return Prompt.chat(boxed_cot_text(problem))
