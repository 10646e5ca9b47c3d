"""Re-score completions made elsewhere (``reasoneval rescore BENCH PATH...``): one path for every benchmark.

A benchmark supplies only an adapter, ``outside_rows(paths, options)``, that turns outside files into
:class:`~reasoneval.core.benchmark.OutsideRow` (item, mode, completion) — or a ``DataError`` for a row it
cannot use — and, optionally, ``outside_json(row, verdict)`` for its JSON-lines fields. This module owns the
rest, exactly as a run does: the response view, scoring, the judge (batched, bounded concurrency),
summarising (``summarize_outside``, by default ``summarize`` per mode), and ``--diff`` (rendering is the CLI's, ``cli/rescore.py``) (the rows
whose verdict differs between the two values of a ``scoring`` option, with the benchmark's ``diff_reason``).
A benchmark whose scoring is cheaper in bulk (KOR-Bench schedules SymPy on the worker pool while the rest
is read) supplies a ``batch_scorer``; the verdicts are the same.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import typing
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.benchmark import Benchmark, OutsideRow, ScoredRow, Turn, decided
from ..core.errors import DataError
from ..core.response import Response
from ..core.types import Completion, GenParams, Outcome, Prompt, Verdict
from ..core.verdicts import Method
from .scoring import judged_verdict, response_of, score_later

JUDGE_PARAMS = GenParams(max_tokens=1024, temperature=0.0)


@dataclass
class OutsideScores:
    """Scored outside rows: one verdict per turn (earlier turns first), and the rows that were unusable."""

    rows: list[OutsideRow] = field(default_factory=list)
    verdicts: list[list[Verdict]] = field(default_factory=list)
    errors: list[DataError] = field(default_factory=list)

    def scored(self, i: int) -> ScoredRow:
        row = self.rows[i]
        turns = [Turn(Prompt(), c, v) for c, v in
                 zip([*row.earlier, row.completion], self.verdicts[i], strict=True)]
        return ScoredRow(row.item.key, row.item.subset, row.sample, turns)

    def groups(self) -> list[tuple[str, str, list[ScoredRow]]]:
        """``(source, mode, rows)`` in first-seen order."""
        by: dict[tuple[str, str], list[ScoredRow]] = defaultdict(list)
        for i, row in enumerate(self.rows):
            by[(row.source, row.mode)].append(self.scored(i))
        return [(src, mode, rs) for (src, mode), rs in by.items()]


def score_outside(bench: Benchmark, rows: Iterable[OutsideRow | DataError], options: Mapping[str, Any]
                  ) -> OutsideScores:
    """Every turn of every row through the response view and the scorer — batched when the benchmark has a
    batch scorer (work is started as rows are read, finished at the end) — then the judge on final turns."""
    got = OutsideScores()
    batch = bench.batch_scorer()
    pending: list[list[Callable[[], Verdict]]] = []
    views: list[Response] = []  # of final turns, for the judge
    # Bulk JSON decoding allocates millions of acyclic objects; the cyclic collector would repeatedly traverse
    # them for nothing (reference counting frees them), so it is paused while the rows are read.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for row in rows:
            if isinstance(row, DataError):
                got.errors.append(row)
                continue
            got.rows.append(row)
            view = response_of(row.completion)
            views.append(view)
            pending.append([*(score_later(bench, batch, row.item, c, row.mode) for c in row.earlier),
                            score_later(bench, batch, row.item, row.completion, row.mode, view)])
        got.verdicts = [[f() for f in fs] for fs in pending]
    finally:
        if gc_was_enabled:
            gc.enable()
        if batch is not None:
            batch.close()
    if type(bench).judge_prompt is not Benchmark.judge_prompt:  # a benchmark that may ask a judge
        finals = _judge(bench, got.rows, views, [vs[-1] for vs in got.verdicts], options.get("judge"),
                        int(options.get("judge_concurrency") or 16))
        for vs, v in zip(got.verdicts, finals, strict=True):
            vs[-1] = v
    elif options.get("judge") is not None:
        asyncio.run(_close(options["judge"]))
    return got


def _judge(bench: Benchmark, rows: list[OutsideRow], views: list[Response], verdicts: list[Verdict], judge: Any,
           concurrency: int) -> list[Verdict]:
    verdicts = list(verdicts)
    pending: list[tuple[int, Prompt]] = []
    for i, row in enumerate(rows):
        r = views[i]
        v = verdicts[i]
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


def scoring_values(bench: Benchmark) -> tuple[str, ...]:
    """The allowed values of the benchmark's ``scoring`` option (e.g. ``official``, ``corrected``), if any."""
    hint = typing.get_type_hints(bench.Options).get("scoring")
    return tuple(str(a) for a in typing.get_args(hint)) if typing.get_origin(hint) is typing.Literal else ()


def diff_lines(bench: Benchmark, got: OutsideScores, options: Mapping[str, Any]) -> list[str]:
    """``--diff``: a count line, then one line per row whose verdict differs between the two values of the
    ``scoring`` option."""
    values = scoring_values(bench)
    if len(values) != 2:
        return [f"--diff: {bench.name} has no two-valued scoring option"]
    current = str(bench.options.to_json().get("scoring"))
    other = copy.copy(bench)
    other.configure({"scoring": values[1] if current == values[0] else values[0]})
    again = score_outside(other, got.rows, {**options, "judge": None})
    a, b = values
    first, second = (got, again) if current == a else (again, got)
    lines = []
    for i, row in enumerate(got.rows):
        va, vb = first.verdicts[i][-1], second.verdicts[i][-1]
        if decided(va) == decided(vb):
            continue
        arrow = f"{'correct' if va.correct else 'wrong'} -> {'correct' if vb.correct else 'wrong'}"
        reason = bench.diff_reason(row, response_of(row.completion).final)
        lines.append(f"{row.source}\t{row.item.subset}\t{row.mode}\t{row.item.id}\t{arrow}\t"
                     f"{a}={va.extracted!r} {b}={vb.extracted!r}\t{reason}")
    return [f"{a} vs {b}: {len(lines)} disagreements in {len(got.rows)} items", *lines]


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
