"""Prompts are the reference templates with the question inserted as released: outer whitespace kept (open-r1
and simple-evals format the raw field; the byte-for-byte comparison with their code is
``scripts/reference_sidebyside.py``)."""

from __future__ import annotations

from reasoneval.benchmarks.gsm8k.prompts import build_prompt as gsm8k_prompt
from reasoneval.benchmarks.hendrycks_math.prompts import build_prompt as math_prompt
from reasoneval.benchmarks.mmlu.prompts import build_prompt as mmlu_prompt


def _text(p: object) -> str:
    content = p.messages[-1].content  # type: ignore[attr-defined]
    assert isinstance(content, str)
    return content


def test_math_prompts_keep_the_question_verbatim() -> None:
    for build in (gsm8k_prompt, math_prompt):
        text = _text(build("  How many apples?\n"))
        assert text.startswith("Solve the following math problem efficiently and clearly.  The last line")
        assert text.endswith("Think step by step before answering.\n\n  How many apples?\n")


def test_mmlu_prompt_keeps_the_question_verbatim() -> None:
    text = _text(mmlu_prompt("\tWhich organ?  \n", ["Heart", " Lung", "Kidney ", "Skin"]))
    assert text.endswith("answering.\n\n\tWhich organ?  \n\n\nA) Heart\nB)  Lung\nC) Kidney \nD) Skin")
