"""Running a spec on this machine: the model's lifecycle (load, start, preflight, close) around the engine.

Used by ``reasoneval run`` and by the builder's steps that ask a model (``builder/calls.py``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..core.benchmark import Benchmark
from ..models.preflight import check_reachable
from ..models.registry import load_model
from ..store.sqlite import RunStore
from .engine import Runner, RunResult
from .spec import RunSpec


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


async def run_local(bench: Benchmark, spec: RunSpec, st: RunStore, concurrency: int, retry_errors: bool,
                    progress: bool, announce: str = "", http: Any = None,
                    say: Callable[[str], None] = _to_stderr) -> RunResult:
    """Load the model (and judge), check both answer, run ``spec`` on this machine, close them again.
    ``announce`` is said once the model answers (from then on the run exists and can be resumed)."""

    backend = load_model(spec.model, concurrency=concurrency, seed=spec.seed, http=http)
    judge = load_model(spec.judge, concurrency=concurrency, seed=spec.seed, http=http) if spec.judge else None
    try:
        start = getattr(backend, "start", None)  # engines that run in a process of their own load here
        if start is not None:
            await start()
        await check_reachable(backend)
        if judge is not None:
            await check_reachable(judge)
        if announce:  # the model answers: from here on the run exists and can be resumed
            say(announce)
        runner = Runner(bench, spec, st, backend, judge, concurrency=concurrency, progress=progress)
        res = await runner.run(retry_errors=retry_errors)
        deaths = getattr(backend, "deaths", None)
        if deaths:
            res.extra["engine_deaths"] = list(deaths)
        stats = getattr(backend, "replica_stats", None)
        if stats is not None and len(getattr(backend, "replicas", [])) > 1:
            for r in stats():
                say(f"replica {r['url']}: {r['done']} done, {r['failures']} failures, {r['throughput_rps']} req/s")
        return res
    finally:
        await backend.aclose()
        if judge is not None:
            await judge.aclose()

