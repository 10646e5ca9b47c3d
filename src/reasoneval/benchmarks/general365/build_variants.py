"""General365 variant expansion (paper §2: human seeds, model-written variants, then audits): a chosen model
writes ``n`` variants of each seed problem (new scenario and numbers, the same kind of answer); they carry
the seed's ``answer_type``, ``float_round`` and ``categories`` and link back through ``seed_id``. Selection
is done by the following recipe steps: ``difficulty`` (target ``general365``) and ``dedup`` (against the
seeds) for diversity, ``cap`` with ``field: seed_id`` for a fixed number per seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...builder.calls import Context, ask
from ...builder.jsonreply import json_value
from ...builder.rows import BuildError, Row, question_text, row_id
from ...builder.steps import StepResult, step
from ...core.values import GenParams, Prompt

PROMPT = """You write new problems for a general-reasoning benchmark that needs only K-12 knowledge.

Seed problem:
{question}

Seed answer ({answer_type}): {answer}

Write {n} variant problems. Each keeps the seed's reasoning challenge but changes the scenario, the names \
and the numbers so that the answer changes; each must have exactly one correct answer of the same kind \
({answer_type}). Do not copy sentences from the seed.
Reply with a JSON list only: [{{"question": "...", "answer": "..."}}, ...]"""
COPIED = ("answer_type", "float_round", "categories")


def read_variants(text: str | None) -> list[dict[str, str]]:
    v = json_value(text, "[") if text is not None else None
    out = []
    for x in v if isinstance(v, list) else []:
        if isinstance(x, dict) and isinstance(x.get("question"), str) and x["question"].strip() \
                and isinstance(x.get("answer"), str | int | float) and str(x["answer"]).strip():
            out.append({"question": x["question"].strip(), "answer": str(x["answer"]).strip()})
    return out


@dataclass(frozen=True)
class VariantsParams:
    model: str = ""
    n: int = 3
    seed: int = 0  # sent to the model (with ``temperature``)
    temperature: float = 0.7
    keep_seeds: bool = False
    max_tokens: int = 4096
    id_field: str | None = None


@step("variants", VariantsParams, "General365: n model-written variants per seed problem")
def variants(rows: list[Row], p: VariantsParams, ctx: Context) -> StepResult:
    if not p.model or p.n < 1:
        raise BuildError("step variants: model is required and n must be at least 1")
    prompts = {}
    for row in rows:
        answer = row.get("answer")
        if answer is None or not str(answer).strip():
            raise BuildError(f"row {row_id(row, p.id_field)}: a seed needs an answer")
        prompts[row_id(row, p.id_field)] = Prompt.chat(PROMPT.format(
            question=question_text(row), answer=answer, answer_type=row.get("answer_type") or "number", n=p.n))
    params = GenParams(max_tokens=p.max_tokens, temperature=p.temperature, seed=p.seed)
    got = ask("variants", prompts, p.model, ctx, params, check=lambda t: bool(read_variants(t)))
    out: list[Row] = []
    short: dict[str, int] = {}
    for row in rows:
        sid = row_id(row, p.id_field)
        found = read_variants(got.text(sid))[: p.n]
        if len(found) < p.n:
            short[sid] = len(found)
        if p.keep_seeds:
            out.append({**row, "seed_id": sid, "is_seed": True, "variant": 0})
        for k, v in enumerate(found, 1):
            new: dict[str, Any] = {"id": f"{sid}_v{k}", **v, "seed_id": sid, "is_seed": False, "variant": k}
            new.update({f: row[f] for f in COPIED if f in row})
            out.append(new)
    return StepResult(out, {"run": got.run_id, "model": p.model, "n": p.n, "seed": p.seed,
                            "temperature": p.temperature, "seeds": len(rows), "variants": len(out) - (
                                len(rows) if p.keep_seeds else 0), "seeds_short": short})
