r"""GSM8K's prompt: the zero-shot CoT template asking for ``\boxed{}`` (``scoring/math_answer.py``).

FineReason (Sec. 5, App. A.6) trains and evaluates with open-r1 and states no evaluation prompt. open-r1's
evaluation at the time sends this template for MATH-500 and scores the boxed answer with math-verify; open-r1
has no GSM8K task, so the same wording is used here (it keeps GSM8K's answers in a box for math-verify).
"""

from __future__ import annotations

from ...core.values import Prompt
from ...scoring.math_answer import boxed_cot_text

MODES = ("zero-shot-cot",)
PROMPT_VERSION = "open-r1-math-v2"  # v2: the question verbatim (outer whitespace kept)


def build_prompt(question: str) -> Prompt:
    return Prompt.chat(boxed_cot_text(question))
