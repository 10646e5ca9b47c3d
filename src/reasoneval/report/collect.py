"""Read runs back from the store as ScoredRows and benchmark tables (no model is ever called here)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..core import registry
from ..core.benchmark import ScoredRow, Table, Turn
from ..core.values import Outcome
from ..store.sqlite import RunStore
from . import reasoning
from .labels import display_name, mode_label
from .slim import Counts, SlimRow, SlimTurn, TextNotRead


@dataclass
class RunView:
    run: dict[str, Any]
    rows: list[ScoredRow]
    tables: list[Table]
    stats: dict[str, Any]


class RunNotFound(KeyError):
    """No run (or more than one) answers to a reference: the one error a report turns into "not found". A
    ``KeyError`` so that callers written before it still catch it."""


class PluginError(Exception):
    """A benchmark's own code (its summary, paper tables, ...) failed on a run: reported as that benchmark's error
    (with its traceback under ``--debug``), never as a missing run. ``__cause__`` is the original exception."""

    def __init__(self, benchmark: str, what: str, exc: BaseException) -> None:
        super().__init__(f"benchmark {benchmark!r}: {what} failed: {type(exc).__name__}: {exc}")
        self.benchmark = benchmark


def resolve_run(store: RunStore, ref: str) -> dict[str, Any]:
    runs = store.find_runs(ref)
    if not runs:
        raise RunNotFound(f"no run matching {ref!r} in {store.path}")
    if len(runs) > 1:
        raise RunNotFound(f"{ref!r} matches {len(runs)} runs: {', '.join(r['run_id'] for r in runs)}")
    return runs[0]


def scored_rows(store: RunStore, run_id: str, scorer: str = "default", prompts: bool = True,
                prompt_cache: dict[str, Any] | None = None) -> list[ScoredRow]:
    """``prompts=False``: the turns' prompts are left empty (tables never show them; the HTML report does);
    ``prompt_cache``: decoded prompts shared with other runs' reads (one Prompt object for the prompt every run of
    a protocol sends)."""
    turns: dict[tuple[str, int], list[Turn]] = defaultdict(list)
    subsets: dict[tuple[str, int], str] = {}
    for c, verdict in store.answers(run_id, scorer, prompts=prompts, prompt_cache=prompt_cache):  # one pass: no table of every verdict first
        k = (c.item_key, c.sample)
        turns[k].append(Turn(c.prompt, c.completion, verdict))
        subsets[k] = c.subset
    return [ScoredRow(k[0], subsets[k], k[1], ts) for k, ts in turns.items()]


def slim_rows(store: RunStore, run_id: str, scorer: str = "default") -> list[ScoredRow]:
    """The rows of ``scored_rows`` (same order, turns, verdicts and numbers) as compact rows for the tables:
    no prompts, no texts (:mod:`.slim`); what an answer costs does not grow with the length of its text.

    The rows come in the order of their first stored turn. A run whose stored turns are all first turns (every
    single-turn protocol) is read without an index of its rows: turn 0 of an (item, sample) is stored once."""
    rows: list[SlimRow] = []
    where: dict[tuple[str, int], SlimRow] | None = None  # made at the first later turn
    counts = Counts()
    for a in store.compact_answers(run_id, scorer):  # no Completion made: two flags of each text (store.compact)
        if where is None and a.turn != 0:
            where = {(r.item_key, r.sample): r for r in rows}
        row = None if where is None else where.get((a.item_key, a.sample))
        if row is not None:
            row.then_compact(a, counts)
            continue
        row = SlimRow.compact(a, counts)
        rows.append(row)
        if where is not None:
            where[(a.item_key, a.sample)] = row
    return list[ScoredRow](rows)


def _call(t: Turn) -> tuple[str | None, int | None, int | None]:
    """A turn's error and token counts (a compact turn's own fields: no completion made for it)."""
    if isinstance(t, SlimTurn):
        return t.error, t.prompt_tokens, t.completion_tokens
    c = t.completion
    return c.error, c.usage.prompt_tokens, c.usage.completion_tokens


def run_stats(rows: list[ScoredRow], figs: reasoning.Figures | None = None) -> dict[str, Any]:
    n = len(rows)
    errors = unans = truncated = 0
    # over the answered calls (a failed call has no usage); unknown usage (None: not reported, or not a valid
    # count) is left out of the sums and counted, never taken as 0
    calls = ptoks = ctoks = p_unknown = c_unknown = 0
    for r in rows:
        final = r.final
        v = final.verdict
        error = _call(final)[0]
        errors += error is not None
        truncated += error is None and final.cut_off  # whatever the verdict made of it
        if v is not None:
            unans += v.outcome is Outcome.UNANSWERABLE
        for t in (r.turns if not isinstance(r, SlimRow) or r.earlier else (r,)):
            e, p, c = _call(t)
            if e is not None:
                continue
            calls += 1
            if p is None:
                p_unknown += 1
            else:
                ptoks += p
            if c is None:
                c_unknown += 1
            else:
                ctoks += c
    return {"items": n, "errors": errors, "unextractable": unans, "truncated": truncated,
            "extraction_failure_rate": round(unans / n, 4) if n else 0.0,
            "prompt_tokens": ptoks if calls > p_unknown else None,  # None: no count known (core.tokens.known_total)
            "completion_tokens": ctoks if calls > c_unknown else None, "calls": calls,
            "prompt_tokens_unknown": p_unknown, "completion_tokens_unknown": c_unknown,
            "mean_output_tokens": round(ctoks / (calls - c_unknown), 1) if calls > c_unknown else None,
            **reasoning.stats(rows, figs)}


def view(store: RunStore, ref: str, scorer: str = "default", prompts: bool = True, slim: bool = False,
         prompt_cache: dict[str, Any] | None = None) -> RunView:
    """``prompts=False``: the rows' prompts are left empty; ``slim``: the rows are compact (:func:`slim_rows`: no
    prompts, no texts), for tables alone (not the HTML report, which shows the texts)."""
    run = resolve_run(store, ref)
    bench = registry.for_run(run)  # configured with the run's own options (scoring policy, data, ...)
    if slim and bench.summary_needs_texts:  # declared: rows with texts at once (no second read, no retry)
        slim, prompts = False, False
    rows = (slim_rows(store, run["run_id"], scorer) if slim
            else scored_rows(store, run["run_id"], scorer, prompts, prompt_cache))
    figs = reasoning.figures(rows)
    stats, extra = run_stats(rows, figs), reasoning.tables(rows, figs)
    del figs  # gone before the summariser runs: the two are never held together
    what = f"the summary of run {run['run_id']}"
    try:
        tables = bench.summarize(rows, run["mode"])
    except TextNotRead as e:
        if not slim:
            raise PluginError(str(run["benchmark"]), what, e) from e
        # a summariser that reads the answers' texts without declaring it (``summary_needs_texts``): it gets rows
        # with texts
        rows = scored_rows(store, run["run_id"], scorer, prompts=False)
        try:
            tables = bench.summarize(rows, run["mode"])
        except Exception as e2:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
            raise PluginError(str(run["benchmark"]), what, e2) from e2
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
        raise PluginError(str(run["benchmark"]), what, e) from e
    return RunView(run, rows, tables + extra, stats)


def _identity(v: RunView) -> dict[str, str]:
    """What defines a run, flattened to short strings (generation parameters one key each)."""
    return {"model": display_name(v.run), "mode": mode_label(v.run), "subset": str(v.run["subset"]),
            **spec_keys(v.run.get("spec") or {})}


def spec_keys(spec: dict[str, Any]) -> dict[str, str]:
    """A run record's generation parameters, options and sampling, flattened to short strings (one key each)."""
    out: dict[str, str] = {}
    for k, val in sorted((spec.get("params") or {}).items()):
        out[k] = json.dumps(val, ensure_ascii=False)
    for k, val in sorted((spec.get("options") or {}).items()):
        out[k] = val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)
    for k in ("samples", "seed", "limit", "limit_sample", "judge", "data_version"):
        if k in spec:
            out[k] = str(spec[k])
    return out


def merge(views: list[RunView]) -> list[Table]:
    """Tables of several runs with the same title/columns become one table with a model column, plus a
    column for everything else that differs between the runs (mode, options, parameters, data), so no two
    rows look the same; when nothing else tells two runs apart, their run ids do."""
    ids = [_identity(v) for v in views]
    keys = list(dict.fromkeys(k for d in ids for k in d))
    differing = [k for k in keys if k != "model" and len({d.get(k, "") for d in ids}) > 1]
    labels = [tuple(d.get(k, "") for k in ["model", *differing]) for d in ids]
    if len(set(labels)) < len(labels):
        differing.append("run")
        labels = [(*lab, v.run["run_id"]) for lab, v in zip(labels, views, strict=True)]
    merged: dict[tuple[str, tuple[str, ...]], Table] = {}
    for v, label in zip(views, labels, strict=True):
        for t in v.tables:
            key = (t.title, tuple(t.columns))
            if key not in merged:
                merged[key] = Table(t.title, ["model", *differing, *t.columns], [], [], t.kind)
            m = merged[key]
            m.rows.extend([[*label, *r] for r in t.rows])
            m.notes.extend(n for n in t.notes if n not in m.notes)  # every run's notes (e.g. each one's scoring)
    return list(merged.values())
