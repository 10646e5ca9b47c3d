"""One run of the engine against a backend, the backend closed after it: what the soak harness and the runner's
fault tests do by hand (no CLI, no run planning)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..core.benchmark import Benchmark
from ..models.base import ModelBackend
from ..runner.engine import Runner
from ..runner.spec import RunSpec
from ..store.sqlite import RunStore


def run_and_close(bench: Benchmark, spec: RunSpec, store: RunStore, backend: ModelBackend,
                  concurrency: int) -> tuple[Any, float]:
    """``Runner(...).run()`` on a fresh event loop, then ``backend.aclose()``: (the run's result, seconds)."""

    async def go() -> Any:
        try:
            return await Runner(bench, spec, store, backend, concurrency=concurrency, progress=False).run()
        finally:
            await backend.aclose()

    started = time.monotonic()
    result = asyncio.run(go())
    return result, time.monotonic() - started
