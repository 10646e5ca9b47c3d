"""The Python API: ``reasoneval.evaluate(...)`` runs a benchmark as ``reasoneval run`` does and returns an
:class:`EvalResult`; ``reasoneval.load_run(run_id)`` reads a stored run back.

The run is built by the same function as the CLI's (``runner/launch.plan_run``), stored in the same store
(``store=``, else ``$REASONEVAL_STORE``, else ``reasoneval.db``), under the same run id, and answers come from
the same cache: the CLI and the API resume each other's runs. Nothing is written to stdout; ``progress=True``
draws the CLI's progress bar on stderr. A request that cannot run raises :class:`~.runner.launch.SpecError` (a
``ValueError``), a model that cannot be loaded :class:`~.models.base.ModelError`.

    import reasoneval
    res = reasoneval.evaluate("mybench:easy", "openai-compat/m@http://127.0.0.1:8000/v1", limit=20)
    print(res.run_id, res.accuracy, res.subsets["easy"].accuracy)

Inside a running event loop (a notebook, an async trainer) use ``await reasoneval.evaluate_async(...)``;
``evaluate()`` called there runs the evaluation on a thread of its own and blocks until it ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core.benchmark import ScoredRow, Table
from .core.values import Outcome

DEFAULT_STORE = "reasoneval.db"
STORE_ENV = "REASONEVAL_STORE"


def default_store() -> Path:
    """The store the CLI uses when given no ``--store``: ``$REASONEVAL_STORE``, else ``reasoneval.db``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


@dataclass(frozen=True)
class SubsetFigures:
    """One subset's figures over the final turns (the CLI's ``runs`` figures, per subset): ``answers`` counts
    (item, sample) pairs; ``accuracy`` is a percentage over the answers whose call did not fail (None: none)."""

    subset: str
    items: int
    answers: int
    correct: int
    errors: int
    unextractable: int

    @property
    def accuracy(self) -> float | None:
        scored = self.answers - self.errors
        return 100.0 * self.correct / scored if scored else None

    def to_json(self) -> dict[str, Any]:
        return {"subset": self.subset, "items": self.items, "answers": self.answers, "correct": self.correct,
                "errors": self.errors, "unextractable": self.unextractable, "accuracy": self.accuracy}


@dataclass(frozen=True)
class Answer:
    """One stored answer turn with its verdict (:meth:`EvalResult.completions`)."""

    item_key: str
    subset: str
    sample: int
    turn: int
    prompt: str  # the last user message
    text: str
    reasoning: str | None
    finish_reason: str | None
    error: str | None
    outcome: str | None  # correct | incorrect | unanswerable | error; None: not scored
    extracted: str | None
    prompt_tokens: int | None
    completion_tokens: int | None

    @property
    def correct(self) -> bool:
        return self.outcome == Outcome.CORRECT.value


@dataclass
class EvalResult:
    """A stored run's identity and figures. ``accuracy``: percent correct over the answers whose call did not
    fail (the figure ``reasoneval runs`` shows, unrounded); ``subsets``: the same per subset; ``tables``: the
    benchmark's own tables (what ``reasoneval run`` prints); ``stats``: counts, tokens, truncation."""

    run_id: str
    store: Path
    benchmark: str
    subset: str | None
    mode: str
    model: str
    accuracy: float | None
    answers: int
    correct: int
    errors: int
    subsets: dict[str, SubsetFigures]
    tables: list[Table]
    stats: dict[str, Any]
    record: dict[str, Any] = field(repr=False)
    #: what this call did (None from :func:`load_run`): generated, cached, reused, errors, resumed
    this_call: dict[str, Any] | None = None

    def completions(self) -> Iterator[Answer]:
        """The run's answer turns in the order stored, with their verdicts, read from the store lazily."""
        from .store.sqlite import RunStore

        st = RunStore(self.store, readonly=True)
        try:
            for c, v in st.answers(self.run_id, "default"):
                comp = c.completion
                yield Answer(c.item_key, c.subset, c.sample, c.turn, c.prompt.last_user_text(), comp.text,
                             comp.reasoning, comp.finish_reason, comp.error, v.outcome.value if v else None,
                             v.extracted if v else None, comp.usage.prompt_tokens, comp.usage.completion_tokens)
        finally:
            st.close()

    def figures(self, prefix: str = "") -> dict[str, float]:
        """Flat numbers for a training logger: ``{prefix}accuracy`` and ``{prefix}<subset>/accuracy`` (0-100),
        ``{prefix}errors``; subsets without a scored answer are left out."""
        out: dict[str, float] = {}
        if self.accuracy is not None:
            out[f"{prefix}accuracy"] = self.accuracy
        for name, s in sorted(self.subsets.items()):
            if s.accuracy is not None:
                out[f"{prefix}{name}/accuracy"] = s.accuracy
        out[f"{prefix}errors"] = float(self.errors)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "store": str(self.store), "benchmark": self.benchmark, "subset": self.subset,
                "mode": self.mode, "model": self.model, "accuracy": self.accuracy, "answers": self.answers,
                "correct": self.correct, "errors": self.errors,
                "subsets": {k: v.to_json() for k, v in self.subsets.items()},
                "tables": [t.to_json() for t in self.tables], "stats": self.stats, "this_call": self.this_call}


def _subset_figures(rows: list[ScoredRow]) -> dict[str, SubsetFigures]:
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # answers, correct, errors, unextractable
    items: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        v = r.final.verdict
        t = tally[r.subset]
        items[r.subset].add(r.item_key)
        t[0] += 1
        if v is None:
            continue
        t[1] += v.outcome is Outcome.CORRECT
        t[2] += v.outcome is Outcome.ERROR
        t[3] += v.outcome is Outcome.UNANSWERABLE
    return {s: SubsetFigures(s, len(items[s]), *tally[s]) for s in sorted(tally)}


def _result(st: Any, ref: str, this_call: dict[str, Any] | None = None) -> EvalResult:
    from .report import collect

    v = collect.view(st, ref, slim=True)
    subsets = _subset_figures(v.rows)
    answers = sum(s.answers for s in subsets.values())
    correct = sum(s.correct for s in subsets.values())
    errors = sum(s.errors for s in subsets.values())
    run = v.run
    return EvalResult(run["run_id"], Path(st.path), run["benchmark"], run["subset"], run["mode"], run["model"],
                      100.0 * correct / (answers - errors) if answers > errors else None, answers, correct, errors,
                      subsets, v.tables, v.stats, run, this_call)


def load_run(run_id: str, store: str | os.PathLike[str] | None = None) -> EvalResult:
    """A stored run (its id, or a unique prefix of it) with its figures; the store is only read."""
    from .report.collect import resolve_run
    from .store.sqlite import RunStore

    path = Path(store) if store is not None else default_store()
    if not path.exists():
        raise FileNotFoundError(f"no store at {path}")
    st = RunStore(path, readonly=True)
    try:
        run = resolve_run(st, run_id)
        return _result(st, run["run_id"])
    finally:
        st.close()


def plan(benchmark: str, model: str, *, limit: int | None = None, settings: str | None = None,
         mode: str | None = None, samples: int = 1, seed: int | None = None, max_tokens: int | None = None,
         temperature: float | None = None, top_p: float | None = None, reasoning_effort: str | None = None,
         system: str | None = None, extra_body: Mapping[str, Any] | str | None = None, judge: str | None = None,
         data: str | os.PathLike[str] | None = None, limit_mode: str = "sample", limit_seed: int = 0,
         say: Callable[[str], None] | None = None, fingerprint: str = "sampled", **options: Any) -> tuple[Any, Any]:
    """The benchmark and the :class:`~.runner.spec.RunSpec` :func:`evaluate` would run (nothing is run or
    stored); ``plan(...)[1].run_id()`` is the run's id."""
    from .runner.launch import plan_run

    body = json.dumps(dict(extra_body)) if isinstance(extra_body, Mapping) else extra_body
    return plan_run(benchmark, model, mode=mode, limit=limit, limit_mode=limit_mode, limit_seed=limit_seed,
                    samples=samples, seed=seed, max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                    reasoning_effort=reasoning_effort, system=system, extra_body=body, settings=settings,
                    judge=judge, data=None if data is None else str(data), option_values=options,
                    say=say or (lambda line: None), fingerprint=fingerprint)


async def evaluate_async(benchmark: str, model: str, *, limit: int | None = None,
                         store: str | os.PathLike[str] | None = None, concurrency: int = 32,
                         settings: str | None = None, mode: str | None = None, samples: int = 1,
                         seed: int | None = None, max_tokens: int | None = None, temperature: float | None = None,
                         top_p: float | None = None, reasoning_effort: str | None = None, system: str | None = None,
                         extra_body: Mapping[str, Any] | str | None = None, judge: str | None = None,
                         data: str | os.PathLike[str] | None = None, limit_mode: str = "sample", limit_seed: int = 0,
                         retry_errors: bool = False, progress: bool = False, offline: bool = False,
                         name: str | None = None, http: Mapping[str, Any] | None = None,
                         say: Callable[[str], None] | None = None, refresh: bool = False,
                         retry_unanswered: bool = False, fingerprint: str = "sampled",
                         **options: Any) -> EvalResult:
    """:func:`evaluate` as a coroutine, for code already inside an event loop."""
    from .runner.launch import http_options
    from .runner.local import run_local
    from .store.sqlite import RunStore

    if offline:
        from .hub import set_offline

        set_offline(True)
    quiet = say or (lambda line: None)
    bench, spec = plan(benchmark, model, limit=limit, settings=settings, mode=mode, samples=samples, seed=seed,
                       max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                       reasoning_effort=reasoning_effort, system=system, extra_body=extra_body, judge=judge,
                       data=data, limit_mode=limit_mode, limit_seed=limit_seed, say=quiet,
                       fingerprint=fingerprint, **options)
    display = None
    if name is not None:
        from .report.labels import clean_name

        display = clean_name(name)
    path = Path(store) if store is not None else default_store()
    st = RunStore(path)
    try:
        with st.run_lock(spec.run_id()):
            result = await run_local(bench, spec, st, concurrency, retry_errors, progress, "",
                                     http_options(**dict(http or {})), say=quiet, refresh=refresh,
                                     retry_unanswered=retry_unanswered)
        if display is not None:
            st.set_display_name(result.run_id, display)
        st.flush()
        done = {"resumed": result.resumed, "units": result.units, "generated": result.generated,
                "cached": result.cached, "reused": result.reused, "errors": result.errors, **result.extra}
        return _result(st, result.run_id, done)
    finally:
        st.close()


def evaluate(benchmark: str, model: str, *, limit: int | None = None, store: str | os.PathLike[str] | None = None,
             concurrency: int = 32, settings: str | None = None, **kwargs: Any) -> EvalResult:
    """Run ``benchmark`` (``name[:subset[,subset]]``) against ``model`` (a model spec as ``reasoneval run
    --model`` takes it), store every completion, score it and return its figures. Keywords: those of
    ``reasoneval run`` (``mode``, ``samples``, ``seed``, ``max_tokens``, ``temperature``, ``top_p``,
    ``reasoning_effort``, ``system``, ``extra_body``, ``judge``, ``data``, ``limit_mode``, ``limit_seed``,
    ``retry_errors``, ``retry_unanswered``, ``refresh``, ``fingerprint`` (sampled | full), ``progress``, ``offline``,
    ``name``, ``http`` (HTTP options: ``timeout_total``, ...));
    any other keyword is a benchmark option (``-O key=value``). Re-running the same call resumes or reuses
    the stored run, as the CLI does."""
    coro = evaluate_async(benchmark, model, limit=limit, store=store, concurrency=concurrency, settings=settings,
                          **kwargs)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # inside a running loop (a notebook): run on a thread with its own loop, and wait for it here
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="reasoneval-evaluate") as pool:
        return pool.submit(asyncio.run, coro).result()
