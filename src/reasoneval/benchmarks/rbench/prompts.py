"""R-Bench prompts (paper Appendix A.2, "System Prompt for R-Bench").

The paper gives only the English template; its worked example and the A.1 o1 transcript use a
slightly different wording (``INSTRUCTION_EN_EXAMPLE``, kept for reference and for reproducing runs
made with it). The Chinese instruction is this harness's translation of the English one (the paper
does not print one); it asks for the final line ``答案是$LETTER``. The no-CoT variant (paper Table 7)
drops the "Think step by step" sentence, which is the natural reading the paper leaves unspecified.
"""

from __future__ import annotations

from typing import Any

from ...core.values import Message, Prompt
from .data import data_url

INSTRUCTION_EN = (
    "Answer the following single-choice question. The last line of your response should be of the "
    "following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of the Options "
    "(e.g. one of ABCDEF). Think step by step before answering.")
INSTRUCTION_EN_EXAMPLE = (
    "Answer the following single choice question. The last line of your response should be of the "
    "following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of Options(e.g. one of "
    "ABCDEF). Think step by step before answering.")
INSTRUCTION_ZH = (
    "回答下面的单选题。你的回答的最后一行应采用以下格式：'答案是$LETTER'（不含引号），其中 LETTER 是选项之一"
    "（例如 ABCDEF 之一）。回答前请逐步思考。")
COT_SENTENCE = {"en": " Think step by step before answering.", "zh": "回答前请逐步思考。"}
LABELS = {"en": ("Question", "Answer"), "zh": ("问题", "答案")}
MODES = ("cot", "no-cot")
PROMPT_VERSION = "rbench-prompt-v1"


def instruction(lang: str, mode: str) -> str:
    text = INSTRUCTION_ZH if lang == "zh" else INSTRUCTION_EN
    if mode == "no-cot":
        text = text.replace(COT_SENTENCE["zh" if lang == "zh" else "en"], "")
    return text


def render_text(question: str, options: dict[str, str], lang: str, mode: str) -> str:
    q_label, a_label = LABELS["zh" if lang == "zh" else "en"]
    lines = [instruction(lang, mode), f"{q_label}: {question.strip()}"]
    lines += [f"{k}. {v.strip()}" for k, v in options.items()]
    lines.append(f"{a_label}:")
    return "\n".join(lines)


def build_prompt(question: str, options: dict[str, str], lang: str, mode: str,
                 images: list[bytes | str] | None = None) -> Prompt:
    """One user message; with images it is a list of OpenAI content parts (images first, then text)."""
    text = render_text(question, options, lang, mode)
    if not images:
        return Prompt.chat(text)
    parts: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": data_url(src)}} for src in images]
    parts.append({"type": "text", "text": text})
    return Prompt(messages=(Message("user", parts),))
