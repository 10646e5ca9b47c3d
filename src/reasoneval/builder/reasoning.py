"""A reasoning-length screening and balance check: keep rows whose reasoning model thought for at least
``min_tokens`` reasoning tokens (a paper's screening: o1, 2,000), then at most ``max`` rows per subject, chosen with a
seed.

Tokens come from the stored completions: the ``reasoning_tokens`` the server reported where present, else the
completion tokens (reasoning and answer together, an upper bound); the report says how many answers used
which. An item's count is the mean over its answers in the given runs.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from ..store.sqlite import RunStore
from .calls import Context, evaluate
from .passrates import default_file, eval_file, resolve, token_counts
from .rows import BuildError, Row, row_id
from .steps import StepResult, step


@dataclass(frozen=True)
class ReasoningParams:
    min_tokens: int = 2000
    target: str = ""  # benchmark[:subset] run on the rows with ``model``
    model: str | None = None
    runs: tuple[str, ...] = ()  # stored runs read as well
    unrated: str = "drop"  # keep | drop rows with no answer in the runs
    file: str = ""
    max_tokens: int | None = None
    id_field: str | None = None


@step("reasoning", ReasoningParams, "keep rows whose reasoning model used at least min_tokens reasoning tokens")
def reasoning(rows: list[Row], p: ReasoningParams, ctx: Context) -> StepResult:
    if not p.model and not p.runs:
        raise BuildError("step reasoning: give model (run on the rows) and/or runs (stored)")
    if p.model and not p.target:
        raise BuildError("step reasoning: model needs a target benchmark[:subset] (reasoneval list)")
    run_ids: list[str] = []
    if p.model:
        data = eval_file(rows, p.file or default_file(p.target), ctx)
        run_ids.append(evaluate(p.target, data, p.model, ctx, p.max_tokens))
    st = RunStore(ctx.store, readonly=True)
    try:
        run_ids += [resolve(st, r)["run_id"] for r in p.runs]
        counts: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for r in run_ids:
            for item, got in token_counts(st, r).items():
                counts[item].extend(got)
    finally:
        st.close()
    sources: Counter[str] = Counter(src for got in counts.values() for _, src in got)
    kept: list[Row] = []
    tokens: dict[str, float | None] = {}
    dropped: dict[str, list[str]] = {"below": [], "unrated": []}
    for row in rows:
        rid = row_id(row, p.id_field)
        got = counts.get(rid) or []
        mean = sum(t for t, _ in got) / len(got) if got else None
        tokens[rid] = None if mean is None else round(mean, 1)
        if mean is None:
            if p.unrated == "drop":
                dropped["unrated"].append(rid)
                continue
        elif mean < p.min_tokens:
            dropped["below"].append(rid)
            continue
        kept.append(row)
    used = ("reasoning_tokens" if sources and set(sources) == {"reasoning_tokens"} else
            "completion_tokens" if sources and set(sources) == {"completion_tokens"} else
            "mixed" if sources else "none")
    report: dict[str, Any] = {"runs": run_ids, "min_tokens": p.min_tokens, "token_source": used,
                              "answers_by_source": dict(sources), "kept": len(kept),
                              "dropped": {k: len(v) for k, v in dropped.items()}, "dropped_ids": dropped,
                              "tokens": tokens}
    if used != "reasoning_tokens" and sources:
        report["note"] = ("completion tokens (reasoning + answer) stood in where the server reported no "
                          "reasoning tokens: an upper bound of the reasoning length")
    return StepResult(kept, report)


@dataclass(frozen=True)
class CapParams:
    max: int = 50  # rows per group (the paper: 50 per subject)
    field: str = "subject"
    seed: int = 0
    missing: str = "keep"  # keep | drop rows without the field (they form no group)


@step("cap", CapParams, "at most max rows per subject (or another field), chosen with a seed")
def cap(rows: list[Row], p: CapParams, ctx: Context) -> StepResult:
    if p.max < 1:
        raise BuildError("step cap: max must be at least 1")
    groups: dict[str, list[int]] = defaultdict(list)
    no_group: list[int] = []
    for i, row in enumerate(rows):
        v = row.get(p.field)
        if v is None or str(v).strip() == "":
            no_group.append(i)
        else:
            groups[str(v)].append(i)
    keep = set(no_group) if p.missing == "keep" else set()
    capped: dict[str, dict[str, int]] = {}
    for g, idx in sorted(groups.items()):
        if len(idx) <= p.max:
            keep.update(idx)
            continue
        rng = random.Random(f"{p.seed}:{g}")  # one stream per group: adding a subject never moves another
        keep.update(rng.sample(idx, p.max))
        capped[g] = {"had": len(idx), "kept": p.max}
    kept = [r for i, r in enumerate(rows) if i in keep]
    return StepResult(kept, {"field": p.field, "max": p.max, "seed": p.seed, "groups": len(groups),
                             "capped": capped, "without_field": len(no_group), "kept": len(kept)})
