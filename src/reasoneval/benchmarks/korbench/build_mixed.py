"""New KOR-Bench mixed sets (paper §4.6): Multi-Q (one rule, 1-10 of its questions), Multi-R (2-3 rules of
different categories, one question of one of them), Multi-RQ (2-3 rules, 1-3 questions of those rules), drawn
from the KOR-Bench rules and questions with a seed, in the release's ``mixed/<set>.jsonl`` format
(``idx``, ``rule_list``, ``question_list``). A generator: the step's input rows are not read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...builder.calls import Context
from ...builder.rows import BuildError, Row
from ...builder.steps import StepResult, step

SETS = ("Multi-Q", "Multi-R", "Multi-RQ")


def _by_rule(data: Any) -> dict[tuple[str, str], list[str]]:
    from .data import CATEGORIES

    out: dict[tuple[str, str], list[str]] = {}
    for cat in CATEGORIES:
        for q in data.questions(cat).values():
            out.setdefault((cat, q.rule_id), []).append(q.idx)
    return {k: sorted(v, key=lambda x: int(x) if x.isdigit() else x) for k, v in sorted(out.items()) if v}


def draw(set_name: str, n: int, seed: int, data: Any) -> list[Row]:
    if set_name not in SETS:
        raise BuildError(f"step kor-mixed: set must be one of {', '.join(SETS)}")
    rng = random.Random(f"{seed}:{set_name}")
    rules = _by_rule(data)
    keys = list(rules)
    rows: list[Row] = []
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    attempts = 0
    while len(rows) < n:
        attempts += 1
        if attempts > 100 * n:
            raise BuildError(f"step kor-mixed: only {len(rows)} distinct {set_name} items could be drawn")
        if set_name == "Multi-Q":
            chosen = [rng.choice(keys)]
            pool = rules[chosen[0]]
            qs = [(chosen[0][0], q) for q in rng.sample(pool, rng.randint(1, min(10, len(pool))))]
        else:
            k = rng.randint(2, 3)
            cats = rng.sample(sorted({c for c, _ in keys}), k)  # rules of different categories
            chosen = [rng.choice([r for r in keys if r[0] == c]) for c in cats]
            if set_name == "Multi-R":
                r = rng.choice(chosen)
                qs = [(r[0], rng.choice(rules[r]))]
            else:
                pairs = [(r[0], q) for r in chosen for q in rules[r]]
                qs = rng.sample(pairs, rng.randint(1, 3))
        rl = tuple(f"{c}_{i}" for c, i in chosen)
        ql = tuple(f"{c}_{q}" for c, q in qs)
        if (rl, ql) in seen:
            continue
        seen.add((rl, ql))
        rows.append({"idx": str(len(rows) + 1), "rule_list": list(rl), "question_list": list(ql)})
    return rows


@dataclass(frozen=True)
class KorMixedParams:
    set: str = "Multi-Q"
    n: int = 100
    seed: int = 0
    data: str | None = None  # KOR-Bench data root (default: the packaged release)


@step("kor-mixed", KorMixedParams, "new KOR-Bench Multi-Q / Multi-R / Multi-RQ sets drawn with a seed")
def kor_mixed(rows: list[Row], p: KorMixedParams, ctx: Context) -> StepResult:
    from .data import KorData, default_data

    data = KorData(Path(p.data)) if p.data else default_data()
    out = draw(p.set, p.n, p.seed, data)
    return StepResult(out, {"set": p.set, "n": len(out), "seed": p.seed, "data_version": data.version()})
