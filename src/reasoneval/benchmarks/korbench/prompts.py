"""KOR-Bench prompt rendering, byte-identical to the official harness.

Templates are the release's ``data/prompts/*.yaml`` (YAML block scalars, so each ends in ``"### Answer:\\n"``)
filled with ``str.format`` positional arguments, exactly as the reference code does:

* zero-shot (chat): ``(rule_content, question)``;
* three-shot (raw completion, no chat template): ``(rule_content, q1, a1, q2, a2, q3, a3, question)`` with
  the three ``three-shot.jsonl`` demonstrations of the rule in file order and bare gold answers;
* trick (puzzle): ``(rule_content, question, trick)``;
* mixed: ``(rules_str, questions_str)``;
* cipher sub-steps: the zero-shot cipher template with ``input + "\\n\\n" + description`` as the question;
* self-correction: the fixed feedback message, optionally preceded by the item's needle sentences.

"Only questions" (paper Appendix K; no official template exists): the zero-/three-shot template with its
``### <Kind> Rule:`` block removed and everything else unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import yaml

from .data import CATEGORIES, DATA_DIR

PROMPT_DIR = DATA_DIR / "prompts"
RULE_HEADINGS = {"operation": "Operation", "logic": "Logic", "cipher": "Cipher", "puzzle": "Puzzle",
                 "counterfactual": "Story"}  # fmt: skip


@cache
def _yaml(name: str) -> dict[str, list[str]]:
    with open(PROMPT_DIR / f"{name}.yaml", encoding="utf-8") as f:
        data = yaml.safe_load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{PROMPT_DIR / name}.yaml: expected a mapping of templates")
    return data


def template(name: str, key: str = "prompt_format") -> str:
    """The raw template text (``{}`` placeholders) of ``prompts/<name>.yaml``."""
    try:
        value = _yaml(name)[key]
    except KeyError as e:
        raise KeyError(f"prompts/{name}.yaml has no {key!r}") from e
    return value[0] if isinstance(value, list) else value


def _category_template(name: str, category: str) -> str:
    if category not in CATEGORIES:
        raise KeyError(f"unknown KOR-Bench category {category!r}")
    return template(name, f"{category}_prompt_format")


def _without_rule(tpl: str, category: str) -> str:
    block = f"### {RULE_HEADINGS[category]} Rule:\n\n{{}}\n\n"
    if tpl.count(block) != 1:
        raise ValueError(f"{category} template has no unique rule block to remove")
    return tpl.replace(block, "")


def zero_shot(category: str, rule_content: str, question: str) -> str:
    return _category_template("zero-shot", category).format(rule_content, question)


def three_shot(category: str, rule_content: str, shots: Sequence[tuple[str, str]], question: str) -> str:
    if len(shots) != 3:
        raise ValueError(f"three-shot needs exactly 3 demonstrations, got {len(shots)}")
    flat = [x for qa in shots for x in qa]
    return _category_template("three-shot", category).format(rule_content, *flat, question)


def only_questions_zero_shot(category: str, question: str) -> str:
    return _without_rule(_category_template("zero-shot", category), category).format(question)


def only_questions_three_shot(category: str, shots: Sequence[tuple[str, str]], question: str) -> str:
    if len(shots) != 3:
        raise ValueError(f"three-shot needs exactly 3 demonstrations, got {len(shots)}")
    flat = [x for qa in shots for x in qa]
    return _without_rule(_category_template("three-shot", category), category).format(*flat, question)


def trick(rule_content: str, question: str, trick_text: str) -> str:
    return template("trick").format(rule_content, question, trick_text)


def subquestion(rule_content: str, input_text: str, description: str) -> str:
    return zero_shot("cipher", rule_content, f"{input_text}\n\n{description}")


def mixed(rule_contents: Sequence[str], questions: Sequence[str]) -> str:
    rules_str = "\n".join(f"{r}\n" for r in rule_contents)
    questions_str = "\n".join(f"question{i}:\n{q}\n" for i, q in enumerate(questions, 1))
    return template("mixed").format(rules_str, questions_str)


def feedback_message() -> str:
    """``Your answer is incorrect, please check your answer and provide a correct one.``"""
    return template("self-correction")


def self_correction_feedback(needle: Sequence[str] | None = None) -> str:
    """The user turn after a wrong answer; the needle variant prefixes the relevant rule sentences."""
    msg = feedback_message()
    if needle:
        return "\n".join(needle) + "\n" + msg
    return msg


def version_text(mode: str) -> str:
    """Everything that determines the prompts of a mode (hashed into ``prompt_version``)."""
    files = {
        "zero-shot": ["zero-shot"], "three-shot": ["three-shot"], "trick": ["trick"], "mixed": ["mixed"],
        "self-correction": ["zero-shot", "self-correction"],
        "self-correction-with-needle": ["zero-shot", "self-correction"],
        "only-questions-zero-shot": ["zero-shot"], "only-questions-three-shot": ["three-shot"],
        "subquestions": ["zero-shot"],
    }.get(mode, [])  # fmt: skip
    return mode + "\0" + "\0".join((PROMPT_DIR / f"{f}.yaml").read_text(encoding="utf-8") for f in files)
