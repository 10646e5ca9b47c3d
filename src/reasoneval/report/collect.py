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
        raise RunNotFound(f"{ref!r} matches {len(runs)} runs: {', '.join(run['run_id'] for run in runs)}")
    return runs[0]


def scored_rows(store: RunStore, run_id: str, scorer: str = "default", prompts: bool = True,
                prompt_cache: dict[str, Any] | None = None) -> list[ScoredRow]:
    """``prompts=False``: the turns' prompts are left empty (tables never show them; the HTML report does);
    ``prompt_cache``: decoded prompts shared with other runs' reads (one Prompt object for the prompt every run of
    a protocol sends)."""
    turns: dict[tuple[str, int], list[Turn]] = defaultdict(list)
    subsets: dict[tuple[str, int], str] = {}
    # one pass: no table of every verdict first
    for stored, verdict in store.answers(run_id, scorer, prompts=prompts, prompt_cache=prompt_cache):
        unit = (stored.item_key, stored.sample)
        turns[unit].append(Turn(stored.prompt, stored.completion, verdict))
        subsets[unit] = stored.subset
    return [ScoredRow(unit[0], subsets[unit], unit[1], unit_turns) for unit, unit_turns in turns.items()]


def slim_rows(store: RunStore, run_id: str, scorer: str = "default") -> list[ScoredRow]:
    """The rows of ``scored_rows`` (same order, turns, verdicts and numbers) as compact rows for the tables:
    no prompts, no texts (:mod:`.slim`); what an answer costs does not grow with the length of its text.

    The rows come in the order of their first stored turn. A run whose stored turns are all first turns (every
    single-turn protocol) is read without an index of its rows: turn 0 of an (item, sample) is stored once."""
    rows: list[SlimRow] = []
    where: dict[tuple[str, int], SlimRow] | None = None  # made at the first later turn
    # no Completion made: two flags of each text (store.compact), each row made of the stored fields at once
    answers = store.compact_answers(run_id, scorer, SlimRow.maker(Counts()))
    add = rows.append
    for row, turn in answers:
        if turn == 0 and where is None:  # every single-turn protocol: nothing else to do
            add(row)
            continue
        if where is None:
            where = {(slim.item_key, slim.sample): slim for slim in rows}
        first = where.get((row.item_key, row.sample))
        if first is not None:
            first.then_row(row)
            continue
        add(row)
        where[(row.item_key, row.sample)] = row
    return list[ScoredRow](rows)


def _call(turn: Turn) -> tuple[str | None, int | None, int | None]:
    """A turn's error and token counts (a compact turn's own fields: no completion made for it)."""
    if isinstance(turn, SlimTurn):
        return turn.error, turn.prompt_tokens, turn.completion_tokens
    comp = turn.completion
    return comp.error, comp.usage.prompt_tokens, comp.usage.completion_tokens


def _slim_counts(rows: list[SlimRow]) -> tuple[int, int, int, int, int, int, int, int]:
    """``run_stats``' counts of one-turn compact rows, a column at a time: errors, unextractable, truncated,
    calls, prompt and completion tokens (known), and the calls of unknown prompt and completion tokens."""
    ok = [r for r in rows if r.error is None]
    unans = sum(1 for r in rows if r.verdict is not None and r.verdict.outcome is Outcome.UNANSWERABLE)
    prompt = [r.prompt_tokens for r in ok]
    completion = [r.completion_tokens for r in ok]
    return (len(rows) - len(ok), unans, sum(1 for r in ok if r.was_cut_off), len(ok),
            sum(x for x in prompt if x is not None), sum(x for x in completion if x is not None),
            prompt.count(None), completion.count(None))


def run_stats(rows: list[ScoredRow], figs: reasoning.Figures | None = None) -> dict[str, Any]:
    n = len(rows)
    errors = unans = truncated = 0
    # over the answered calls (a failed call has no usage); unknown usage (None: not reported, or not a valid
    # count) is left out of the sums and counted, never taken as 0
    calls = ptoks = ctoks = p_unknown = c_unknown = 0
    if figs.single if figs is not None else reasoning.single_turn_slim(rows):
        errors, unans, truncated, calls, ptoks, ctoks, p_unknown, c_unknown = _slim_counts(rows)  # type: ignore[arg-type]
    else:
        for row in rows:
            final = row.final
            verdict = final.verdict
            error = _call(final)[0]
            errors += error is not None
            truncated += error is None and final.cut_off  # whatever the verdict made of it
            if verdict is not None:
                unans += verdict.outcome is Outcome.UNANSWERABLE
            for turn in (row.turns if not isinstance(row, SlimRow) or row.earlier else (row,)):
                turn_error, prompt_tokens, completion_tokens = _call(turn)
                if turn_error is not None:
                    continue
                calls += 1
                if prompt_tokens is None:
                    p_unknown += 1
                else:
                    ptoks += prompt_tokens
                if completion_tokens is None:
                    c_unknown += 1
                else:
                    ctoks += completion_tokens
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


def _identity(run_view: RunView) -> dict[str, str]:
    """What defines a run, flattened to short strings (generation parameters one key each)."""
    return {"model": display_name(run_view.run), "mode": mode_label(run_view.run),
            "subset": str(run_view.run["subset"]),
            **spec_keys(run_view.run.get("spec") or {})}


def spec_keys(spec: dict[str, Any]) -> dict[str, str]:
    """A run record's generation parameters, options and sampling, flattened to short strings (one key each)."""
    out: dict[str, str] = {}
    for key, val in sorted((spec.get("params") or {}).items()):
        out[key] = json.dumps(val, ensure_ascii=False)
    for key, val in sorted((spec.get("options") or {}).items()):
        out[key] = val if isinstance(val, str) else json.dumps(val, ensure_ascii=False)
    for key in ("samples", "seed", "limit", "limit_sample", "judge", "data_version"):
        if key in spec:
            out[key] = str(spec[key])
    return out


def merge(views: list[RunView]) -> list[Table]:
    """Tables of several runs with the same title/columns become one table with a model column, plus a
    column for everything else that differs between the runs (mode, options, parameters, data), so no two
    rows look the same; when nothing else tells two runs apart, their run ids do."""
    ids = [_identity(run_view) for run_view in views]
    keys = list(dict.fromkeys(name for identity in ids for name in identity))
    differing = [name for name in keys
                 if name != "model" and len({identity.get(name, "") for identity in ids}) > 1]
    labels = [tuple(identity.get(name, "") for name in ["model", *differing]) for identity in ids]
    if len(set(labels)) < len(labels):
        differing.append("run")
        labels = [(*lab, run_view.run["run_id"]) for lab, run_view in zip(labels, views, strict=True)]
    merged: dict[tuple[str, tuple[str, ...]], Table] = {}
    for run_view, label in zip(views, labels, strict=True):
        for table in run_view.tables:
            key = (table.title, tuple(table.columns))
            if key not in merged:
                merged[key] = Table(table.title, ["model", *differing, *table.columns], [], [], table.kind)
            target = merged[key]
            target.rows.extend([[*label, *row] for row in table.rows])
            # every run's notes (e.g. each one's scoring)
            target.notes.extend(note for note in table.notes if note not in target.notes)
    return list(merged.values())
