"""Running a spec: the models' lifecycle (load, start, preflight, close: :mod:`.lifecycle`) around the engine.

Used by ``reasoneval run`` (``--executor ray`` too, with Ray's workers as the model: :mod:`.ray_exec`) and by
the builder's steps that ask a model (``builder/calls.py``)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

from ..core.benchmark import Benchmark
from ..models.base import ModelBackend
from ..models.registry import load_model
from ..store.sqlite import RunStore
from .engine import Runner, RunResult
from .lifecycle import serving
from .spec import RunSpec


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


async def run_local(bench: Benchmark, spec: RunSpec, st: RunStore, concurrency: int, retry_errors: bool,
                    progress: bool, announce: str = "", http: Any = None,
                    say: Callable[[str], None] = _to_stderr, backend: ModelBackend | None = None, *,
                    refresh: bool = False, retry_unanswered: bool = False, quiet_gc: bool = False) -> RunResult:
    """Load the model (and judge), check both answer, run ``spec`` on this machine, close them again.
    ``announce`` is said once the model answers (from then on the run exists and can be resumed).
    ``backend``: a model served elsewhere (Ray's workers, started and checked by their owner, who closes them)
    in place of loading ``spec.model`` here. ``refresh`` / ``retry_unanswered``: :meth:`Runner.run`."""
    own = backend is None
    model = load_model(spec.model, concurrency=concurrency, seed=spec.seed, http=http) if backend is None else backend
    judge = load_model(spec.judge, concurrency=concurrency, seed=spec.seed, http=http) if spec.judge else None
    async with contextlib.AsyncExitStack() as served:
        if judge is not None:  # closed last, however the model's start ends
            served.push_async_callback(judge.aclose)
        if own:
            await served.enter_async_context(serving(model))
        if judge is not None:
            await served.enter_async_context(serving(judge, close=False))
        if announce:  # the model answers: from here on the run exists and can be resumed
            say(announce)
        runner = Runner(bench, spec, st, model, judge, concurrency=concurrency, progress=progress)
        runner.quiet_gc = quiet_gc  # the CLI owns its process's collector; a library caller's host is left alone
        res = await runner.run(retry_errors=retry_errors, refresh=refresh, retry_unanswered=retry_unanswered)
        deaths = getattr(model, "deaths", None)
        if deaths:
            res.extra["engine_deaths"] = list(deaths)
        stats = getattr(model, "replica_stats", None)
        if own and stats is not None and len(getattr(model, "replicas", [])) > 1:
            for r in stats():
                say(f"replica {r['url']}: {r['done']} done, {r['failures']} failures, {r['throughput_rps']} req/s")
        return res
