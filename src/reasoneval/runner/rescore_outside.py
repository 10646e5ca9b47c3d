"""Re-score completions made elsewhere (``reasoneval rescore BENCH PATH...``): one path for every benchmark.

A benchmark supplies only an adapter, ``outside_rows(paths, options)``, that turns outside files into
:class:`~reasoneval.core.benchmark.OutsideRow` (item, mode, completion) — or a ``DataError`` for a row it
cannot use — and, optionally, ``outside_json(row, verdict)`` for its JSON-lines fields. This module owns the
rest, exactly as a run does: one :class:`~reasoneval.runner.session.ScoringSession` per mode (the response
view, scoring, the judge gate; the judge's calls batched, bounded concurrency),
summarising (``summarize_outside``, by default ``summarize`` per mode), and ``--diff`` (rendering is the CLI's, ``cli/rescore_output.py``) (the rows
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
from ..core.values import Completion, Prompt, Verdict
from ..models.base import ModelBackend
from .lifecycle import serving
from .session import JUDGE_PARAMS, Ask, ScoringSession
from .verdict_of import response_of


@dataclass
class OutsideScores:
    """Scored outside rows: one verdict per turn (earlier turns first), and the rows that were unusable."""

    rows: list[OutsideRow] = field(default_factory=list)
    verdicts: list[list[Verdict]] = field(default_factory=list)
    errors: list[DataError] = field(default_factory=list)
    #: row index -> the judge's prompt and completion of its final turn (rows the judge was asked about)
    judged: dict[int, tuple[Prompt, Completion]] = field(default_factory=dict)

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
    """Every turn of every row through the scoring session (the response view and the scorer, batched when
    the benchmark has a batch scorer: work is started as rows are read, finished at the end), then the judge
    gate on final turns. ``options["judge"]``: a loaded judge backend or None; it is closed here."""
    got = OutsideScores()
    batch = bench.batch_scorer()
    sessions: dict[str, ScoringSession] = {}
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
            s = sessions.get(row.mode) or sessions.setdefault(row.mode, ScoringSession(bench, row.mode))
            view = s.view(row.completion)
            views.append(view)
            pending.append([*(s.score_later(batch, row.item, c) for c in row.earlier),
                            s.score_later(batch, row.item, row.completion, view)])
        got.verdicts = [[f() for f in fs] for fs in pending]
    finally:
        if gc_was_enabled:
            gc.enable()
        if batch is not None:
            batch.close()
    judge = options.get("judge")
    if not any(s.may_judge for s in sessions.values()):  # no answer can go to a judge
        if judge is not None:
            asyncio.run(judge.aclose())
        return got
    if judge is None:  # the answers the gate sends to the judge are judge-missing
        finals = [sessions[row.mode].after_judge(row.item, row.completion, views[i], got.verdicts[i][-1], None)
                  for i, row in enumerate(got.rows)]
    else:
        finals = asyncio.run(_judge_finals(sessions, got, views, judge,
                                           int(options.get("judge_concurrency") or 16)))
    for vs, v in zip(got.verdicts, finals, strict=True):
        vs[-1] = v
    return got


async def _judge_finals(sessions: Mapping[str, ScoringSession], got: OutsideScores, views: list[Response],
                        judge: ModelBackend, concurrency: int) -> list[Verdict]:
    """The final turns' verdicts after the judge gate, the judge's calls made at once (at most ``concurrency``
    in flight) while the judge is served (started, checked, closed: :func:`~reasoneval.runner.lifecycle.serving`)."""
    async with serving(judge):
        ask = bounded_ask(judge, concurrency)

        def kept(i: int) -> Ask:  # the call is kept with the row (``import`` stores it, as a run does)
            async def ask_kept(p: Prompt) -> Completion:
                c = await ask(p)
                got.judged[i] = (p, c)
                return c

            return ask_kept

        return list(await asyncio.gather(*(
            sessions[row.mode].ajudge(row.item, row.completion, views[i], got.verdicts[i][-1], kept(i))
            for i, row in enumerate(got.rows))))


def bounded_ask(judge: ModelBackend, concurrency: int) -> Ask:
    """Asks ``judge`` with at most ``concurrency`` calls in flight; a failed call is an error completion."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def ask(p: Prompt) -> Completion:
        async with sem:
            try:
                return await judge.generate(p, JUDGE_PARAMS)
            except Exception as e:  # a failed judge call is an error verdict, not a crash
                return Completion(error=f"{e.__class__.__name__}: {e}")

    return ask


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
