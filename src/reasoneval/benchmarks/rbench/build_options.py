"""R-Bench option generation (paper §2.4): a model writes five options (the correct answer and four
distractors), the fixed "All other answers are incorrect" / "其他答案都不正确" is added, and the six are
shuffled with a seed (one stream per row id, so a row's letters never depend on the others). Numeric options
are kept apart: a distractor within ``min_gap`` (relative) of the answer or of another option is dropped,
and a row left with fewer than four distractors is rejected (reported), as the paper adjusts them by hand.

Input rows: ``id``, ``question``, ``answer`` (free text; kept as ``answer_text``), optional ``lang``
(en | zh), ``department``, ``subject``. Output rows: the R-Bench schema (``options`` A-F, ``answer`` letter).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from ...builder.calls import Context, ask
from ...builder.jsonreply import json_value
from ...builder.rows import BuildError, Row, question_text, row_id
from ...builder.steps import StepResult, step
from ...core.values import GenParams, Prompt

NONE_CORRECT = {"en": "All other answers are incorrect", "zh": "其他答案都不正确"}
LETTERS = "ABCDEF"
DISTRACTORS = 4

PROMPT_EN = """You are writing a single-choice question for a graduate-level reasoning benchmark.

Question:
{question}

Reference answer:
{answer}

Write five answer options: the correct answer, stated concisely as a final result, and four plausible but \
incorrect options of the same kind (same units and format). Numerical options must differ from each other by \
at least {gap}% so that rounding cannot make two of them agree. Do not write "All other answers are \
incorrect": it is added separately.
Reply with JSON only: {{"correct": "...", "distractors": ["...", "...", "...", "..."]}}"""

PROMPT_ZH = """你正在为一个研究生水平的推理评测编写单选题。

题目：
{question}

参考答案：
{answer}

请写出五个选项：一个是正确答案（简洁地给出最终结果），另外四个是看似合理但错误的选项（形式和单位与正确答案一致）。\
数值选项之间至少相差{gap}%，以免四舍五入后相同。不要写“其他答案都不正确”，该选项会另外加入。
只回复 JSON：{{"correct": "...", "distractors": ["...", "...", "...", "..."]}}"""

_NUM = re.compile(r"^\$?\s*([-+−]?\d+(?:,\d{3})*(?:\.\d+)?)\s*(?:(?:×|x|\\times)\s*10\^\{?([-+−]?\d+)\}?|[eE]([-+]?\d+))?"
                  r"\s*\$?\s*([^\d]{0,24})$")


def numeric_value(option: str) -> tuple[float, str] | None:
    """(value, unit) when the option is a number with an optional power of ten and a short unit."""
    m = _NUM.match(option.strip())
    if not m:
        return None
    value = float(m.group(1).replace(",", "").replace("−", "-"))
    exp = m.group(2) or m.group(3)
    if exp:
        value *= 10 ** int(exp.replace("−", "-"))
    return value, m.group(4).strip()


def too_close(a: str, b: str, min_gap: float) -> bool:
    """Same text, or two numbers of one unit within ``min_gap`` of each other (relative)."""
    if " ".join(a.lower().split()) == " ".join(b.lower().split()):
        return True
    na, nb = numeric_value(a), numeric_value(b)
    if na is None or nb is None or na[1] != nb[1]:
        return False
    return abs(na[0] - nb[0]) <= min_gap * max(abs(na[0]), abs(nb[0]))


def parse_options(text: str) -> tuple[str, list[str]] | None:
    v = json_value(text)
    if not isinstance(v, dict):
        return None
    correct, distractors = v.get("correct"), v.get("distractors")
    if not isinstance(correct, str | int | float) or not isinstance(distractors, list):
        return None
    ds = [str(d).strip() for d in distractors if isinstance(d, str | int | float) and str(d).strip()]
    return (str(correct).strip(), ds) if str(correct).strip() else None


def choose(correct: str, distractors: list[str], lang: str, min_gap: float) -> tuple[list[str], list[str]]:
    """(kept distractors, dropped ones): none too close to the answer, the fixed option or a kept one."""
    kept: list[str] = []
    dropped: list[str] = []
    fixed = NONE_CORRECT[lang]
    for d in distractors:
        if any(too_close(d, o, min_gap) for o in (correct, fixed, *kept)):
            dropped.append(d)
        else:
            kept.append(d)
    return kept[:DISTRACTORS], dropped


def arrange(rid: str, correct: str, distractors: list[str], lang: str, seed: int) -> tuple[dict[str, str], str]:
    """The six options in a seeded order and the correct letter."""
    opts = [correct, *distractors, NONE_CORRECT[lang]]
    order = list(range(len(opts)))
    random.Random(f"{seed}:{rid}").shuffle(order)
    letters = {LETTERS[pos]: opts[i] for pos, i in enumerate(order)}
    answer = LETTERS[order.index(0)]
    return letters, answer


@dataclass(frozen=True)
class OptionsParams:
    model: str = ""
    seed: int = 0
    min_gap: float = 0.05  # relative gap between numeric options
    lang: str = "en"  # when a row has no lang field
    max_tokens: int = 1024
    id_field: str | None = None


def _lang(row: Row, default: str) -> str:
    lang = str(row.get("lang") or row.get("language") or default)
    if lang not in NONE_CORRECT:
        raise BuildError(f"row {row_id(row)}: lang must be en or zh, got {lang!r}")
    return lang


def _answer(row: Row) -> str:
    v = row.get("answer_text", row.get("answer"))
    if not isinstance(v, str | int | float) or isinstance(v, bool) or not str(v).strip():
        raise BuildError(f"row {row_id(row)}: needs an answer (free text) to write options around")
    return str(v).strip()


@step("options", OptionsParams, "R-Bench options: five model-written + the fixed 'all other answers are incorrect'")
def options(rows: list[Row], p: OptionsParams, ctx: Context) -> StepResult:
    if not p.model:
        raise BuildError("step options: model is required")
    prompts: dict[str, Prompt] = {}
    for row in rows:
        lang = _lang(row, p.lang)
        template = PROMPT_ZH if lang == "zh" else PROMPT_EN
        prompts[row_id(row, p.id_field)] = Prompt.chat(template.format(
            question=question_text(row), answer=_answer(row), gap=round(100 * p.min_gap, 2)))
    answers = ask("options", prompts, p.model, ctx, GenParams(max_tokens=p.max_tokens, temperature=0.0),
                  check=lambda t: parse_options(t) is not None)
    out: list[Row] = []
    rejected: dict[str, str] = {}
    dropped_total = 0
    for row in rows:
        rid = row_id(row, p.id_field)
        text = answers.text(rid)
        parsed = parse_options(text) if text is not None else None
        if parsed is None:
            rejected[rid] = "no reply" if text is None else "unreadable reply"
            continue
        correct, distractors = parsed
        lang = _lang(row, p.lang)
        kept, dropped = choose(correct, distractors, lang, p.min_gap)
        dropped_total += len(dropped)
        if len(kept) < DISTRACTORS:
            rejected[rid] = f"{len(kept)} usable distractors (dropped as too close: {dropped})"
            continue
        letters, answer = arrange(rid, correct, kept, lang, p.seed)
        new = {k: v for k, v in row.items() if k not in ("options", *LETTERS)}
        new.update({"options": letters, "answer": answer, "answer_text": _answer(row), "lang": lang})
        out.append(new)
    report: dict[str, Any] = {"run": answers.run_id, "model": p.model, "seed": p.seed, "min_gap": p.min_gap,
                              "written": len(out), "rejected": rejected, "distractors_dropped": dropped_total}
    return StepResult(out, report)
