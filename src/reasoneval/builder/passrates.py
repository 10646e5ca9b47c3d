"""Per-item figures read from stored runs: pass rates and output (reasoning) tokens."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from ..core.benchmark import decided
from ..store.sqlite import RunStore
from .calls import Context
from .rows import BuildError, Row, rows_sha256, write_rows


def resolve(st: RunStore, ref: str) -> dict[str, Any]:
    found = st.find_runs(ref)
    if len(found) != 1:
        raise BuildError(f"run {ref!r}: {'no run' if not found else f'{len(found)} runs'} in {st.path} match")
    return found[0]


def pass_rates(st: RunStore, run_id: str) -> dict[str, float]:
    """Item id -> share of its samples answered correctly (final turns; errors and undecided excluded)."""
    final: dict[tuple[str, int], tuple[int, Any]] = {}
    for (key, sample, turn), v in st.verdicts(run_id, "default").items():
        if (key, sample) not in final or turn > final[(key, sample)][0]:
            final[(key, sample)] = (turn, v)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (key, _), (_, v) in final.items():
        d = decided(v)
        if d is None:
            continue
        t = tally[key.partition("/")[2]]
        t[0] += int(d)
        t[1] += 1
    return {k: c / n for k, (c, n) in tally.items() if n}


def token_counts(st: RunStore, run_id: str) -> dict[str, list[tuple[int, str]]]:
    """Item id -> (tokens, source) of each answer of the run: the stored reasoning tokens where the server
    reported them, else the completion tokens (reasoning and answer together)."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for c in st.completions(run_id, "answer"):
        comp = c.completion
        if comp.error is not None:
            continue
        item = c.item_key.partition("/")[2]
        if comp.reasoning_tokens is not None:
            out[item].append((comp.reasoning_tokens, "reasoning_tokens"))
        elif comp.usage.completion_tokens is not None:  # unknown usage: no figure for this answer
            out[item].append((comp.usage.completion_tokens, "completion_tokens"))
    return out


def eval_file(rows: list[Row], name: str, ctx: Context) -> Path:
    """The rows as a data file a benchmark reads (``--data``), in a folder named by their content, so a data
    version never goes stale and the same rows are the same run."""
    return write_rows(ctx.workdir / "eval" / rows_sha256(rows)[:12] / name, rows)


def default_file(target: str) -> str:
    name, _, subset = target.partition(":")
    return f"{name}-{subset}.jsonl" if subset else f"{name}.jsonl"
