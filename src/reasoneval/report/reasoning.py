"""Reasoning tables for any benchmark, from stored completions: reasoning tokens, thinking time, truncation.

* **Reasoning and thinking time**: per subset (category) and overall: accuracy, reasoning tokens, answer
  tokens, thinking time, latency, and the share of answers cut off at the token limit, so a reader sees
  when the limit, not the model, decided the score.
* **Accuracy against reasoning tokens**: items in four quartile bins of reasoning tokens (output tokens when
  the server reports no reasoning tokens), with accuracy, answer tokens and truncation per bin.
* **Thinking time by subset**: mean thinking time per subset, one row per model: R-Bench Table 4's layout.

Thinking time is the measured time to the first answer token (``Completion.ttft_s``, streamed responses);
it is never estimated. Tables appear only for runs that have reasoning data or truncated answers.
"""

from __future__ import annotations

import math
from array import array
from statistics import fmean
from typing import Any

from ..core import number_format
from ..core.benchmark import Column, ScoredRow, Table, Turn
from ..core.tokens import known_total
from ..core.values import Outcome
from .slim import SlimRow, SlimTurn, reasoned

NA = "-"
_UNKNOWN = -(2 ** 63)  # a token count that is not known, in the int64 columns of Figures
_ERROR, _CORRECT, _TRUNCATED, _REASONING = 1, 2, 4, 8


def _reasoned(t: Turn) -> bool:
    return t.reasoned if isinstance(t, SlimTurn) else reasoned(t.completion)


class _Column:
    """One figure of every row (``array`` of ``kind``; ``unknown`` where a row has none) that takes no memory
    while no row has one (reasoning tokens and thinking time of a model that reports neither)."""

    def __init__(self, kind: str, unknown: Any) -> None:
        self.kind, self.unknown = kind, unknown
        self.values: array[Any] | None = None
        self.n = 0

    @classmethod
    def of(cls, kind: str, unknown: Any, xs: list[Any]) -> _Column:
        """The column of ``xs`` (None: not known), as appending each would make it."""
        col = cls(kind, unknown)
        if all(x is None for x in xs):
            col.n = len(xs)
        else:
            col.values = array(kind, [unknown if x is None else x for x in xs])
        return col

    def append(self, x: Any) -> None:
        if x is None:
            x = self.unknown
            if self.values is None:
                self.n += 1
                return
        elif self.values is None:
            self.values = array(self.kind, [self.unknown]) * self.n
        self.values.append(x)

    def __getitem__(self, i: int) -> Any:
        return self.unknown if self.values is None else self.values[i]


class Figures:
    """Each row's figures (subset, error, correct, reasoning / answer / output tokens, thinking time, latency,
    truncated, reasoned) as columns, a few bytes per row whatever the run's size, for :func:`stats` and
    :func:`tables` (computed once when both are wanted)."""

    def __init__(self, rows: list[ScoredRow]) -> None:
        self.subsets: list[str] = []  # in the order first seen
        where: dict[str, int] = {}
        self.subset, self.flags = array("I"), bytearray()
        self.reasoning_tokens, self.answer_tokens = _Column("q", _UNKNOWN), _Column("q", _UNKNOWN)
        self.output_tokens = _Column("q", _UNKNOWN)
        self.ttft, self.latency = _Column("d", math.nan), _Column("d", math.nan)
        #: every row a one-turn compact row (``single_turn_slim``)
        self.single = single_turn_slim(rows)
        if self.single:  # the tables' rows of a one-turn protocol: column by column
            self._slim_columns(rows)  # type: ignore[arg-type]
            return
        for r in rows:
            if isinstance(r, SlimRow) and not r.earlier:  # one turn, read for the tables: its fields directly
                self._slim(r, where)
                continue
            turns = r.turns
            comps = [t.completion for t in turns]
            rt = [c.reasoning_tokens for c in comps if c.reasoning_tokens is not None]
            out, unknown = known_total(c.usage.completion_tokens for c in comps)
            if unknown:
                out = None  # a row's output is known only when every turn's is
            ttft = [c.ttft_s for c in comps if c.ttft_s is not None]
            v = r.final.verdict
            if r.subset not in where:
                where[r.subset] = len(self.subsets)
                self.subsets.append(r.subset)
            self.subset.append(where[r.subset])
            self.flags.append(_ERROR * (r.final.error is not None)
                              | _CORRECT * bool(v and v.outcome is Outcome.CORRECT)
                              | _TRUNCATED * any(t.cut_off for t in turns)
                              | _REASONING * any(_reasoned(t) for t in turns))
            self.reasoning_tokens.append(sum(rt) if rt else None)
            self.answer_tokens.append(out - sum(rt) if rt and out is not None else None)
            self.output_tokens.append(out)
            self.ttft.append(fmean(ttft) if ttft else None)
            lat = [c.latency_s for c in comps]  # None: not known (an imported answer): the row has no latency
            self.latency.append(None if any(x is None for x in lat) else sum(x for x in lat if x is not None))

    def _slim(self, r: SlimRow, where: dict[str, int]) -> None:
        """A one-turn compact row, as the loop of ``__init__`` takes it (the same figures, no objects made)."""
        v = r.verdict
        if r.subset not in where:
            where[r.subset] = len(self.subsets)
            self.subsets.append(r.subset)
        self.subset.append(where[r.subset])
        self.flags.append(_ERROR * (r.error is not None)
                          | _CORRECT * bool(v and v.outcome is Outcome.CORRECT)
                          | _TRUNCATED * r.was_cut_off  # core.response.cut_off, as every table counts it
                          | _REASONING * bool(r.reasoned))
        rt, out = r.reasoning_tokens, r.completion_tokens
        self.reasoning_tokens.append(rt)
        self.answer_tokens.append(out - rt if rt is not None and out is not None else None)
        self.output_tokens.append(out)
        self.ttft.append(r.ttft_s)
        self.latency.append(r.latency_s)

    def _slim_columns(self, rows: list[SlimRow]) -> None:
        """The figures of one-turn compact rows, each column at once: what ``_slim`` of each row in turn makes."""
        subsets = [r.subset for r in rows]
        self.subsets = list(dict.fromkeys(subsets))
        where = {s: i for i, s in enumerate(self.subsets)}
        self.subset = array("I", [where[s] for s in subsets])
        correct = Outcome.CORRECT
        self.flags = bytearray([(_ERROR if r.error is not None else 0)
                                | (_CORRECT if r.verdict is not None and r.verdict.outcome is correct else 0)
                                | (_TRUNCATED if r.was_cut_off else 0) | (_REASONING if r.reasoned else 0)
                                for r in rows])
        rt = [r.reasoning_tokens for r in rows]
        out = [r.completion_tokens for r in rows]
        self.reasoning_tokens = _Column.of("q", _UNKNOWN, rt)
        self.answer_tokens = _Column.of("q", _UNKNOWN, [o - t if t is not None and o is not None else None
                                                         for t, o in zip(rt, out, strict=True)])
        self.output_tokens = _Column.of("q", _UNKNOWN, out)
        self.ttft = _Column.of("d", math.nan, [r.ttft_s for r in rows])
        self.latency = _Column.of("d", math.nan, [r.latency_s for r in rows])

    def answered(self, subset: int | None = None) -> list[int]:
        """The rows (indices) that are not failed calls, of one subset or all."""
        return [i for i, f in enumerate(self.flags) if not f & _ERROR and (subset is None or self.subset[i] == subset)]

    def count(self, idx: list[int], flag: int) -> int:
        return sum(1 for i in idx if self.flags[i] & flag)

    def tokens(self, column: _Column, idx: list[int]) -> list[int]:
        """The known values of a token column over ``idx``."""
        values = column.values
        return [] if values is None else [x for x in (values[i] for i in idx) if x != _UNKNOWN]

    def times(self, column: _Column, idx: list[int]) -> list[float]:
        values = column.values
        return [] if values is None else [x for x in (values[i] for i in idx) if not math.isnan(x)]


def single_turn_slim(rows: list[ScoredRow]) -> bool:
    """Whether every row is a one-turn compact row (:class:`~.slim.SlimRow` without earlier turns): the tables'
    rows of every one-turn protocol, read a column at a time."""
    return all(isinstance(r, SlimRow) and not r.earlier for r in rows)


def _mean(xs: list[Any], digits: int = number_format.DIGITS) -> Any:
    got = [x for x in xs if x is not None]
    return number_format.rounded(fmean(got), digits) if got else NA


def _pct(k: int, n: int) -> Any:
    got = number_format.percent(k, n)
    return NA if got is None else got


def _summary(label: str, figs: Figures, subset: int | None) -> list[Any]:
    n = len(figs.flags) if subset is None else figs.subset.count(subset)
    ok = figs.answered(subset)
    return [label, n, _pct(figs.count(ok, _CORRECT), len(ok)),
            _mean(figs.tokens(figs.reasoning_tokens, ok)), _mean(figs.tokens(figs.answer_tokens, ok)),
            _mean(figs.tokens(figs.output_tokens, ok)), _mean(figs.times(figs.ttft, ok), 2),
            _mean(figs.times(figs.latency, ok), 2), _pct(figs.count(ok, _TRUNCATED), len(ok))]


def figures(rows: list[ScoredRow]) -> Figures:
    """Each row's figures, for :func:`stats` and :func:`tables` (computed once when both are wanted)."""
    return Figures(rows)


def stats(rows: list[ScoredRow], figs: Figures | None = None) -> dict[str, Any]:
    """Run-level figures for ``run_stats``: reasoning tokens, thinking time, truncation rate."""
    figs = figures(rows) if figs is None else figs
    ok = figs.answered()
    n_ok, truncated = len(ok), figs.count(ok, _TRUNCATED)
    rt: list[int] = figs.tokens(figs.reasoning_tokens, ok)
    tt: list[float] = figs.times(figs.ttft, ok)
    return {"reasoning_tokens": sum(rt) if rt else None,
            "mean_reasoning_tokens": round(fmean(rt), 1) if rt else None,
            "mean_thinking_time_s": round(fmean(tt), 3) if tt else None,
            # R-Bench kept the questions on which o1 reasoned for at least 2,000 tokens
            "items_reasoning_2000_plus": sum(1 for x in rt if x >= 2000) if rt else None,
            "truncation_rate": round(truncated / n_ok, 4) if n_ok else 0.0}


def tables(rows: list[ScoredRow], figs: Figures | None = None) -> list[Table]:
    figs = figures(rows) if figs is None else figs
    answered = figs.answered()
    has_reasoning = (figs.count(answered, _REASONING) > 0 or bool(figs.tokens(figs.reasoning_tokens, answered))
                     or bool(figs.times(figs.ttft, answered)))
    if not answered or not (has_reasoning or figs.count(answered, _TRUNCATED) > 0):
        return []
    subsets = figs.subsets
    main = Table("Reasoning and thinking time",
                 ["subset", "items", Column("accuracy %", "accuracy", "%"), "reasoning tokens", "answer tokens", "output tokens",
                  "thinking time s", "latency s", "truncated %"],
                 [_summary(s, figs, i) for i, s in enumerate(subsets)],
                 ["Means per item over answered items; reasoning tokens as the server reports them "
                  "(usage.completion_tokens_details.reasoning_tokens), answer tokens = output - reasoning.",
                  "Thinking time: measured time to the first answer token (streamed responses); '-' where the "
                  "response was not streamed.",
                  "truncated %: answers cut off at the token limit (finish_reason 'length') or inside a "
                  "reasoning section never closed, as the benchmarks' own tables count them; a corrected "
                  "reading scores them unanswerable, an official one reads what is there and flags it."])
    if len(subsets) > 1:
        main.rows.append(_summary("all", figs, None))
    out = [main, _by_tokens(figs, answered)]
    if figs.times(figs.ttft, answered):
        # R-Bench Table 4's layout (the paper averages o1 over 30 random items per benchmark)
        out.append(Table("Thinking time by subset (s)", subsets,
                         [[_mean(figs.times(figs.ttft, figs.answered(i)), 2) for i in range(len(subsets))]],
                         ["Mean measured time to the first answer token per item, over every answered item (a "
                          "paper may average fewer: a sample of random items per subset)."]))
    return out


def _by_tokens(figs: Figures, ok: list[int]) -> Table:
    reasoning = bool(figs.tokens(figs.reasoning_tokens, ok))
    col = figs.reasoning_tokens if reasoning else figs.output_tokens
    name = "reasoning tokens" if reasoning else "output tokens"
    known = sorted((i for i in ok if col[i] != _UNKNOWN), key=col.__getitem__)  # stable: ties in row order
    rows = []
    n = len(known)
    for q in range(4):
        part = known[q * n // 4:(q + 1) * n // 4]
        if not part:
            continue
        lo, hi = col[part[0]], col[part[-1]]
        rows.append([f"Q{q + 1}: {lo}-{hi}", len(part), _pct(figs.count(part, _CORRECT), len(part)),
                     _mean(figs.tokens(figs.answer_tokens, part)), _pct(figs.count(part, _TRUNCATED), len(part))])
    return Table(f"Accuracy against {name}", [f"{name} (quartile)", "items", Column("accuracy %", "accuracy", "%"),
                                              "answer tokens",
                                              "truncated %"], rows,
                 [f"Answered items in four equal-size bins of {name}."])
