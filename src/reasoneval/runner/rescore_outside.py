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
import typing
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.benchmark import BatchScorer, Benchmark, OutsideRow, ScoredRow, Turn, decided
from ..core.errors import DataError
from ..core.response import Response
from ..core.values import Completion, Prompt, Verdict
from ..models.base import ModelBackend
from .gcquiet import paused
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
        turns = [Turn(Prompt(), completion, verdict) for completion, verdict in
                 zip([*row.earlier, row.completion], self.verdicts[i], strict=True)]
        return ScoredRow(row.item.key, row.item.subset, row.sample, turns)

    def groups(self) -> list[tuple[str, str, list[ScoredRow]]]:
        """``(source, mode, rows)`` in first-seen order."""
        by_source: dict[tuple[str, str], list[ScoredRow]] = defaultdict(list)
        for i, row in enumerate(self.rows):
            by_source[(row.source, row.mode)].append(self.scored(i))
        return [(src, mode, group) for (src, mode), group in by_source.items()]


def score_outside(bench: Benchmark, rows: Iterable[OutsideRow | DataError], options: Mapping[str, Any]
                  ) -> OutsideScores:
    """Every turn of every row through the scoring session (the response view and the scorer, batched when
    the benchmark has a batch scorer: work is started as rows are read, finished at the end), then the judge
    gate on final turns. ``options["judge"]``: a loaded judge backend or None; it is closed here."""
    return start_outside(bench, rows).finish(options)


def start_outside(bench: Benchmark, rows: Iterable[OutsideRow | DataError]) -> StartedOutside:
    """The first half of :func:`score_outside`: ``rows`` read, viewed and their verdicts started (a batch
    scorer's slow parts, e.g. SymPy in the sandbox, go on in the background); :meth:`StartedOutside.finish`
    makes the verdicts. A streamed import starts the next rows while earlier ones are still being finished."""
    started = StartedOutside(bench, bench.batch_scorer())
    got = started.got
    # Bulk JSON decoding allocates millions of acyclic objects; the cyclic collector would repeatedly traverse
    # them for nothing (reference counting frees them), so it is paused while the rows are read.
    with paused():
        try:
            for row in rows:
                if isinstance(row, DataError):
                    got.errors.append(row)
                    continue
                got.rows.append(row)
                sessions = started.sessions
                session = sessions.get(row.mode) or sessions.setdefault(row.mode, ScoringSession(bench, row.mode))
                view = session.view(row.completion)
                started.views.append(view)
                started.pending.append([*(session.score_later(started.batch, row.item, earlier)
                                          for earlier in row.earlier),
                                        session.score_later(started.batch, row.item, row.completion, view)])
        except BaseException:
            if started.batch is not None:
                started.batch.close()
            raise
    return started


@dataclass
class StartedOutside:
    """Rows read and their verdicts started (:func:`start_outside`), not yet finished."""

    bench: Benchmark
    batch: BatchScorer | None
    got: OutsideScores = field(default_factory=OutsideScores)
    sessions: dict[str, ScoringSession] = field(default_factory=dict)
    pending: list[list[Callable[[], Verdict]]] = field(default_factory=list)
    views: list[Response] = field(default_factory=list)  # of final turns, for the judge

    def finish(self, options: Mapping[str, Any]) -> OutsideScores:
        """The verdicts (waiting for the batch scorer's background work), then the judge gate on final turns.
        ``options["judge"]``: a loaded judge backend or None; it is closed here."""
        got, sessions, views = self.got, self.sessions, self.views
        try:
            with paused():
                got.verdicts = [[finish() for finish in finishers] for finishers in self.pending]
        finally:
            if self.batch is not None:
                self.batch.close()
        self.pending = []
        judge = options.get("judge")
        if not any(session.may_judge for session in sessions.values()):  # no answer can go to a judge
            if judge is not None:
                asyncio.run(judge.aclose())
            return got
        if judge is None:  # the answers the gate sends to the judge are judge-missing
            finals = [sessions[row.mode].after_judge(row.item, row.completion, views[i], got.verdicts[i][-1], None)
                      for i, row in enumerate(got.rows)]
        else:
            finals = asyncio.run(_judge_finals(sessions, got, views, judge,
                                               int(options.get("judge_concurrency") or 16)))
        for turn_verdicts, final in zip(got.verdicts, finals, strict=True):
            turn_verdicts[-1] = final
        return got


async def _judge_finals(sessions: Mapping[str, ScoringSession], got: OutsideScores, views: list[Response],
                        judge: ModelBackend, concurrency: int) -> list[Verdict]:
    """The final turns' verdicts after the judge gate, the judge's calls made at once (at most ``concurrency``
    in flight) while the judge is served (started, checked, closed: :func:`~reasoneval.runner.lifecycle.serving`)."""
    async with serving(judge):
        ask = bounded_ask(judge, concurrency)

        def kept(i: int) -> Ask:  # the call is kept with the row (``import`` stores it, as a run does)
            async def ask_kept(prompt: Prompt) -> Completion:
                reply = await ask(prompt)
                got.judged[i] = (prompt, reply)
                return reply

            return ask_kept

        return list(await asyncio.gather(*(
            sessions[row.mode].ajudge(row.item, row.completion, views[i], got.verdicts[i][-1], kept(i))
            for i, row in enumerate(got.rows))))


def bounded_ask(judge: ModelBackend, concurrency: int) -> Ask:
    """Asks ``judge`` with at most ``concurrency`` calls in flight; a failed call is an error completion."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def ask(prompt: Prompt) -> Completion:
        async with sem:
            try:
                return await judge.generate(prompt, JUDGE_PARAMS)
            except Exception as e:  # a failed judge call is an error verdict, not a crash
                return Completion(error=f"{e.__class__.__name__}: {e}")

    return ask


def scoring_values(bench: Benchmark) -> tuple[str, ...]:
    """The allowed values of the benchmark's ``scoring`` option (e.g. ``official``, ``corrected``), if any."""
    hint = typing.get_type_hints(bench.Options).get("scoring")
    return tuple(str(arg) for arg in typing.get_args(hint)) if typing.get_origin(hint) is typing.Literal else ()


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
    value_a, value_b = values
    first, second = (got, again) if current == value_a else (again, got)
    lines = []
    for i, row in enumerate(got.rows):
        verdict_a, verdict_b = first.verdicts[i][-1], second.verdicts[i][-1]
        if decided(verdict_a) == decided(verdict_b):
            continue
        arrow = f"{'correct' if verdict_a.correct else 'wrong'} -> {'correct' if verdict_b.correct else 'wrong'}"
        reason = bench.diff_reason(row, response_of(row.completion).final)
        lines.append(f"{row.source}\t{row.item.subset}\t{row.mode}\t{row.item.id}\t{arrow}\t"
                     f"{value_a}={verdict_a.extracted!r} {value_b}={verdict_b.extracted!r}\t{reason}")
    return [f"{value_a} vs {value_b}: {len(lines)} disagreements in {len(got.rows)} items", *lines]
