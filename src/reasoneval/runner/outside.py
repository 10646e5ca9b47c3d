"""Re-score completions made elsewhere (``reasoneval rescore BENCH PATH...``): one path for every benchmark.

A benchmark supplies only an adapter, ``outside_rows(paths, options)``, that turns outside files into
:class:`~reasoneval.core.benchmark.OutsideRow` (item, mode, completion) — or a ``DataError`` for a row it
cannot use — and, optionally, ``outside_json(row, verdict)`` for its JSON-lines fields. This module owns the
rest, exactly as a run does: the response view, scoring, the judge (batched, bounded concurrency),
summarising (``summarize``) and rendering. A benchmark with its own batched pipeline (KOR-Bench's SymPy
scheduling) overrides ``rescore_batch`` instead.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from typing import IO, Any

from ..core.benchmark import Benchmark, OutsideRow, ScoredRow, Turn
from ..core.errors import DataError
from ..core.types import Completion, GenParams, Outcome, Prompt, Verdict
from ..core.verdicts import Method
from .scoring import judged_verdict, response_of, score_completion

JUDGE_PARAMS = GenParams(max_tokens=1024, temperature=0.0)


def rescore_outside(bench: Benchmark, paths: list[str], jsonl: bool, options: dict[str, Any],
                    out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Score, judge, summarise, render. Returns 0, 1 when any row was bad, 2 when there was nothing."""
    out = out or sys.stdout
    err = err or sys.stderr
    batch = bench.rescore_batch(paths, jsonl, options, out, err)
    if batch is not None:
        return batch
    rows: list[OutsideRow] = []
    bad = 0
    for got in bench.outside_rows(paths, options):
        if isinstance(got, DataError):
            print(f"error: {got}", file=err)
            bad += 1
        else:
            rows.append(got)
    if not rows:
        if not bad:
            print(f"error: no rows found in {', '.join(paths)}", file=err)
        return 2
    verdicts = _score_all(bench, rows, options.get("judge"), int(options.get("judge_concurrency") or 16))
    by_mode: dict[str, list[ScoredRow]] = defaultdict(list)
    for row, v in zip(rows, verdicts, strict=True):
        if jsonl:
            out.write(json.dumps(bench.outside_json(row, v), ensure_ascii=False) + "\n")
        by_mode[row.mode].append(ScoredRow(row.item.key, row.item.subset, row.sample,
                                           [Turn(Prompt(), row.completion, v)]))
    if not jsonl:
        from rich.console import Console

        from ..report.render import to_terminal

        tables = [t for mode, rs in by_mode.items() for t in bench.summarize(rs, mode)]
        to_terminal(tables, Console(file=out) if out is not sys.stdout else None)
    print(f"{bench.name} rescore: {len(rows)} row(s) scored, {bad} bad row(s)", file=err)
    return 1 if bad else 0


def _score_all(bench: Benchmark, rows: list[OutsideRow], judge: Any, concurrency: int) -> list[Verdict]:
    verdicts: list[Verdict] = []
    pending: list[tuple[int, Prompt]] = []
    views = []
    for i, row in enumerate(rows):
        r = response_of(row.completion)
        views.append(r)
        v = score_completion(bench, row.item, row.completion, row.mode, r)
        verdicts.append(v)
        if row.completion.error is None and v.method != Method.TRUNCATED:
            jp = bench.judge_prompt(row.item, r.final, row.mode)
            if jp is not None:
                pending.append((i, jp))
    if judge is not None and pending:
        replies = asyncio.run(_judge_all(judge, [jp for _, jp in pending], concurrency))
        for (i, _), reply in zip(pending, replies, strict=True):
            verdicts[i] = judged_verdict(bench, rows[i].item, views[i], rows[i].mode, verdicts[i], reply)
    else:
        for i, _ in pending:  # as in a run without --judge: these items need the judge
            v = verdicts[i]
            verdicts[i] = Verdict(Outcome.UNANSWERABLE, v.extracted, Method.JUDGE_MISSING,
                                  {**v.detail, "rule_outcome": v.outcome.value, "rule_method": str(v.method),
                                   "note": "this answer needs the LLM judge (--judge)"})
        if judge is not None:
            asyncio.run(_close(judge))
    return verdicts


async def _judge_all(judge: Any, prompts: list[Prompt], concurrency: int) -> list[Completion]:
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(p: Prompt) -> Completion:
        async with sem:
            try:
                c: Completion = await judge.generate(p, JUDGE_PARAMS)
                return c
            except Exception as e:  # a failed judge call is an error verdict, not a crash
                return Completion(error=f"{e.__class__.__name__}: {e}")

    try:
        return list(await asyncio.gather(*(one(p) for p in prompts)))
    finally:
        await _close(judge)


async def _close(judge: Any) -> None:
    close = getattr(judge, "aclose", None)
    if close is not None:
        await close()
