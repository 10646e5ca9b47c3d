"""Translation EN<->ZH by a chosen model (R-Bench §2.4: GPT-4o drafts, experts review) with a round-trip
consistency check: the translation is translated back by ``back_model`` (default: the same model) and
compared with the original. With an English original the measure is the MiniLM cosine of the question and
its back-translation; with a Chinese original (MiniLM is English-only) it is a character-level
``difflib`` ratio; the report names the measure. A translation also fails when its numbers differ from the
original's (as multisets) or options go missing. Failing rows are dropped (``on_fail: drop``) or kept with a
``translation_check`` field (``keep``).

Rows keep their id and answer; ``question`` and ``options`` are translated, ``lang`` (and an R-Bench
``subset`` like ``t_en``) is set to the target language, so the two files pair by id.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...builder.calls import Context, ask
from ...builder.jsonreply import json_value
from ...builder.rows import BuildError, Row, row_id
from ...builder.steps import MINILM, Need, StepResult, step
from ...core.values import GenParams, Prompt

NAMES = {"en": ("English", "英文"), "zh": ("Chinese", "中文")}
PROMPT = """Translate the JSON below from {src} to {dst}. Translate the string values only; keep the keys, \
LaTeX, formulas, numbers, units and variable names exactly as they are. Reply with the translated JSON only.

{payload}"""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def payload(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {"question": row.get("question")}
    if isinstance(row.get("options"), dict):
        out["options"] = row["options"]
    if not isinstance(out["question"], str) or not out["question"].strip():
        raise BuildError(f"row {row_id(row)}: field 'question' must be a non-empty string")
    return out


def translation_prompt(doc: dict[str, Any], src: str, dst: str) -> Prompt:
    return Prompt.chat(PROMPT.format(src=NAMES[src][0], dst=NAMES[dst][0],
                                     payload=json.dumps(doc, ensure_ascii=False, indent=1)))


def read_translation(text: str | None, original: dict[str, Any]) -> dict[str, Any] | None:
    """The translated payload when it has a question and the same option letters, else None."""
    v = json_value(text) if text is not None else None
    if not isinstance(v, dict) or not isinstance(v.get("question"), str) or not v["question"].strip():
        return None
    if "options" in original:
        opts = v.get("options")
        if not isinstance(opts, dict) or set(opts) != set(original["options"]):
            return None
        v["options"] = {k: str(opts[k]) for k in original["options"]}
    return {k: v[k] for k in original}


def numbers(doc: dict[str, Any]) -> Counter[str]:
    text = doc["question"] + " " + " ".join((doc.get("options") or {}).values())
    return Counter(_NUMBER.findall(text))


def similarity(a: str, b: str, lang: str) -> tuple[float, str]:
    """(score, measure) of an original and its back-translation."""
    if lang == "en":
        from ...builder.dedup import vectors

        v = vectors([a, b])
        return float(v[0] @ v[1]), "minilm-cosine"
    return difflib.SequenceMatcher(None, a, b).ratio(), "difflib-char-ratio"


@dataclass(frozen=True)
class TranslateParams:
    model: str = ""
    to: str = "zh"
    source: str = ""  # default: each row's lang, else the other language than ``to``
    back_model: str | None = None
    threshold: float = 0.8
    on_fail: str = "drop"  # drop | keep (with a translation_check field)
    max_tokens: int = 4096
    id_field: str | None = None


def _subset(value: Any, dst: str) -> Any:
    if isinstance(value, str) and re.fullmatch(r"(rbench[-_])?[tm]_(en|zh)", value):
        return value[:-2] + dst
    return value


def _needs(p: TranslateParams) -> Sequence[Need]:
    """A translation into Chinese is compared with its back-translation in English, by MiniLM (into English: by
    difflib, nothing to install)."""
    return MINILM if p.to != "en" else ()


@step("translate", TranslateParams, "translate EN<->ZH by a model, with a round-trip consistency check",
      needs=_needs)
def translate(rows: list[Row], p: TranslateParams, ctx: Context) -> StepResult:
    if not p.model:
        raise BuildError("step translate: model is required")
    if p.to not in NAMES or (p.source and p.source not in NAMES) or p.on_fail not in ("drop", "keep"):
        raise BuildError("step translate: to/source must be en or zh, on_fail drop or keep")
    other = "en" if p.to == "zh" else "zh"
    srcs = {row_id(r, p.id_field): str(p.source or r.get("lang") or other) for r in rows}
    if any(s == p.to or s not in NAMES for s in srcs.values()):
        raise BuildError(f"step translate: every row must be in the other language than {p.to}")
    docs = {row_id(r, p.id_field): payload(r) for r in rows}
    fwd = ask("translate", {k: translation_prompt(d, srcs[k], p.to) for k, d in docs.items()}, p.model, ctx,
              GenParams(max_tokens=p.max_tokens, temperature=0.0), check=lambda t: json_value(t) is not None)
    translated = {k: read_translation(fwd.text(k), d) for k, d in docs.items()}
    back_prompts = {k: translation_prompt(t, p.to, srcs[k]) for k, t in translated.items() if t is not None}
    back = ask("back-translate", back_prompts, p.back_model or p.model, ctx,
               GenParams(max_tokens=p.max_tokens, temperature=0.0), check=lambda t: json_value(t) is not None)
    out: list[Row] = []
    failures: dict[str, str] = {}
    scores: dict[str, float] = {}
    measures: Counter[str] = Counter()
    for row in rows:
        rid = row_id(row, p.id_field)
        t = translated[rid]
        problem = None
        check: dict[str, Any] = {}
        if t is None:
            failures[rid] = "no usable translation"
            continue
        b = read_translation(back.text(rid), docs[rid])
        if numbers(t) != numbers(docs[rid]):
            problem = "numbers differ from the original"
        if b is None:
            problem = problem or "no usable back-translation"
        else:
            score, measure = similarity(docs[rid]["question"], b["question"], srcs[rid])
            measures[measure] += 1
            scores[rid] = round(score, 4)
            check = {"round_trip": round(score, 4), "measure": measure, "back": b["question"]}
            if score < p.threshold:
                problem = problem or f"round trip {score:.3f} < {p.threshold}"
        if problem:
            failures[rid] = problem
            if p.on_fail == "drop":
                continue
        new = {**row, **t, "lang": p.to}
        if "subset" in row:
            new["subset"] = _subset(row["subset"], p.to)
        if p.on_fail == "keep":
            new["translation_check"] = {**check, "ok": problem is None, "problem": problem}
        out.append(new)
    report = {"runs": [fwd.run_id, back.run_id], "model": p.model, "back_model": p.back_model or p.model,
              "to": p.to, "threshold": p.threshold, "measures": dict(measures), "translated": len(out),
              "failures": failures, "round_trip": scores}
    return StepResult(out, report)
