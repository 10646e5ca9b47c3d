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

from statistics import fmean
from typing import Any

from ..core.benchmark import Column, ScoredRow, Table
from ..core.response import has_inline_reasoning
from ..core.tokens import known_total
from ..core.types import Outcome
from . import numbers

NA = "-"


def _row_figures(r: ScoredRow) -> dict[str, Any]:
    comps = [t.completion for t in r.turns]
    rt = [c.reasoning_tokens for c in comps if c.reasoning_tokens is not None]
    out, unknown = known_total(c.usage.completion_tokens for c in comps)
    if unknown:
        out = None  # a row's output is known only when every turn's is
    ttft = [c.ttft_s for c in comps if c.ttft_s is not None]
    v = r.final.verdict
    return {"subset": r.subset, "error": r.final.completion.error is not None,
            "correct": bool(v and v.outcome is Outcome.CORRECT),
            "reasoning_tokens": sum(rt) if rt else None,
            "answer_tokens": out - sum(rt) if rt and out is not None else None, "output_tokens": out,
            "ttft": fmean(ttft) if ttft else None, "latency": sum(c.latency_s for c in comps),
            "truncated": any(c.finish_reason == "length" for c in comps),
            "reasoning": any(c.reasoning for c in comps) or any(has_inline_reasoning(c.text) for c in comps)}


def _mean(xs: list[Any], digits: int = numbers.DIGITS) -> Any:
    got = [x for x in xs if x is not None]
    return numbers.rounded(fmean(got), digits) if got else NA


def _pct(k: int, n: int) -> Any:
    got = numbers.percent(k, n)
    return NA if got is None else got


def _summary(label: str, figs: list[dict[str, Any]]) -> list[Any]:
    ok = [f for f in figs if not f["error"]]
    return [label, len(figs), _pct(sum(f["correct"] for f in ok), len(ok)),
            _mean([f["reasoning_tokens"] for f in ok]), _mean([f["answer_tokens"] for f in ok]),
            _mean([f["output_tokens"] for f in ok]), _mean([f["ttft"] for f in ok], 2),
            _mean([f["latency"] for f in ok], 2), _pct(sum(f["truncated"] for f in ok), len(ok))]


def figures(rows: list[ScoredRow]) -> list[dict[str, Any]]:
    """Each row's figures, for :func:`stats` and :func:`tables` (computed once when both are wanted)."""
    return [_row_figures(r) for r in rows]


def stats(rows: list[ScoredRow], figs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run-level figures for ``run_stats``: reasoning tokens, thinking time, truncation rate."""
    figs = figures(rows) if figs is None else figs
    ok = [f for f in figs if not f["error"]]
    rt = [f["reasoning_tokens"] for f in ok if f["reasoning_tokens"] is not None]
    tt = [f["ttft"] for f in ok if f["ttft"] is not None]
    return {"reasoning_tokens": sum(rt) if rt else None,
            "mean_reasoning_tokens": round(fmean(rt), 1) if rt else None,
            "mean_thinking_time_s": round(fmean(tt), 3) if tt else None,
            # R-Bench kept the questions on which o1 reasoned for at least 2,000 tokens
            "items_reasoning_2000_plus": sum(1 for x in rt if x >= 2000) if rt else None,
            "truncation_rate": round(sum(f["truncated"] for f in ok) / len(ok), 4) if ok else 0.0}


def tables(rows: list[ScoredRow], figs: list[dict[str, Any]] | None = None) -> list[Table]:
    figs = figures(rows) if figs is None else figs
    ok = [f for f in figs if not f["error"]]
    has_reasoning = any(f["reasoning_tokens"] is not None or f["ttft"] is not None or f["reasoning"] for f in ok)
    if not ok or not (has_reasoning or any(f["truncated"] for f in ok)):
        return []
    subsets = list(dict.fromkeys(f["subset"] for f in figs))
    main = Table("Reasoning and thinking time",
                 ["subset", "items", Column("accuracy %", "accuracy", "%"), "reasoning tokens", "answer tokens", "output tokens",
                  "thinking time s", "latency s", "truncated %"],
                 [_summary(s, [f for f in figs if f["subset"] == s]) for s in subsets],
                 ["Means per item over answered items; reasoning tokens as the server reports them "
                  "(usage.completion_tokens_details.reasoning_tokens), answer tokens = output - reasoning.",
                  "Thinking time: measured time to the first answer token (streamed responses); '-' where the "
                  "response was not streamed.",
                  "truncated %: answers cut off at the token limit (finish_reason 'length'); those items are "
                  "scored unanswerable, so the limit, not the model, decided them."])
    if len(subsets) > 1:
        main.rows.append(_summary("all", figs))
    out = [main, _by_tokens(ok)]
    if any(f["ttft"] is not None for f in ok):
        out.append(Table("Thinking time by subset (s)", subsets,
                         [[_mean([f["ttft"] for f in ok if f["subset"] == s], 2) for s in subsets]],
                         ["Mean measured time to the first answer token per item (R-Bench Table 4 layout; "
                          "the paper averages o1 over 30 random items per benchmark)."]))
    return out


def _by_tokens(ok: list[dict[str, Any]]) -> Table:
    key = "reasoning_tokens" if any(f["reasoning_tokens"] is not None for f in ok) else "output_tokens"
    known = sorted((f for f in ok if f[key] is not None), key=lambda f: f[key])
    name = key.replace("_", " ")
    rows = []
    n = len(known)
    for q in range(4):
        part = known[q * n // 4:(q + 1) * n // 4]
        if not part:
            continue
        lo, hi = part[0][key], part[-1][key]
        rows.append([f"Q{q + 1}: {lo}-{hi}", len(part), _pct(sum(f["correct"] for f in part), len(part)),
                     _mean([f["answer_tokens"] for f in part]), _pct(sum(f["truncated"] for f in part), len(part))])
    return Table(f"Accuracy against {name}", [f"{name} (quartile)", "items", Column("accuracy %", "accuracy", "%"), "answer tokens",
                                              "truncated %"], rows,
                 [f"Answered items in four equal-size bins of {name}."])
