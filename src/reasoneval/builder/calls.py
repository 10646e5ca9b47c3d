"""Model calls of build steps, through the normal runner: cached, resumable and stored like any run.

``ask`` wraps a step's prompts in a small internal benchmark (:class:`PromptTask`); its run id is the hash
of the step, the model, the parameters and every prompt, so re-running a step resumes it and asks nothing
twice (the response cache answers prompts already asked by any run). ``evaluate`` runs a registered
benchmark on a data file (``--data``) to measure pass rates and reasoning tokens.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark
from ..core.hashing import hash_obj
from ..core.values import Completion, GenParams, Item, Outcome, Prompt, Verdict
from ..runner.spec import RunSpec
from ..store.sqlite import RunStore
from .rows import BuildError

Check = Callable[[str], bool]
SUBSET = "build"
MODE = "ask"


@dataclass
class Context:
    """Where a build runs: the run store, how many requests in flight, progress bars, a work folder."""

    store: Path = Path("reasoneval.db")
    concurrency: int = 16
    progress: bool = False
    workdir: Path = Path("build-work")
    #: relative file paths in step parameters are read from here (a recipe's folder); None: the working folder
    base: Path | None = None
    #: run ids made or read by the steps so far (for the manifest)
    runs: list[dict[str, Any]] = field(default_factory=list)


class PromptTask(Benchmark):
    """An internal benchmark of one build step: its items are the step's prompts. A reply is *correct* when
    the step's ``check`` can read it, so ``reasoneval runs`` shows the share of usable replies."""

    default_mode = MODE

    def __init__(self, step: str, prompts: dict[str, Prompt], check: Check | None = None) -> None:
        self.name = f"build-{step}"
        self.description = f"build step {step}"
        self._prompts = prompts
        self._check = check

    def subsets(self) -> list[str]:
        return [SUBSET]

    def modes(self) -> list[str]:
        return [MODE]

    def load(self, subset: str, mode: str) -> list[Item]:
        return [Item(self.name, SUBSET, k, {"prompt": p.to_json()}) for k, p in self._prompts.items()]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return self._prompts[item.id]

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        ok = self._check(text) if self._check else bool(text.strip())
        return Verdict(Outcome.CORRECT if ok else Outcome.UNANSWERABLE, None, "build-readable" if ok else
                       "build-unreadable")

    def data_version(self) -> str:
        return hash_obj({k: p.to_json() for k, p in self._prompts.items()})[:16]

    def prompt_version(self, mode: str) -> str:
        return "build"


@dataclass
class Answers:
    run_id: str
    completions: dict[str, Completion]  # prompt key -> completion (errors included)

    def text(self, key: str) -> str | None:
        c = self.completions.get(key)
        return None if c is None or c.error is not None else c.text


def _execute(bench: Benchmark, spec: RunSpec, ctx: Context) -> str:
    """Run ``spec`` with the CLI's local runner (model loading, preflight, engine processes)."""
    from ..models.base import ModelError
    from ..runner.local import run_local

    st = RunStore(ctx.store)
    try:
        with st.run_lock(spec.run_id()):
            res = asyncio.run(run_local(bench, spec, st, ctx.concurrency, True, ctx.progress))
    except ModelError as e:
        raise BuildError(str(e)) from e
    finally:
        st.close()
    ctx.runs.append({"run_id": res.run_id, "benchmark": spec.benchmark, "model": spec.model,
                     "items": res.units, "generated": res.generated, "cached": res.cached + res.reused,
                     "errors": res.errors})
    return res.run_id


def ask(step: str, prompts: dict[str, Prompt], model: str, ctx: Context, params: GenParams | None = None,
        check: Check | None = None, samples: int = 1) -> Answers:
    """Send every prompt to ``model`` through the runner; the replies by prompt key."""
    if not prompts:
        return Answers("", {})
    bench = PromptTask(step, prompts, check)
    params = params or GenParams(max_tokens=2048, temperature=0.0)
    spec = RunSpec(bench.name, None, MODE, model, params, samples, params.seed or 0,
                   data_version=bench.data_version())
    run_id = _execute(bench, spec, ctx)
    st = RunStore(ctx.store, readonly=True)
    try:
        got = {c.item_key.partition("/")[2]: c.completion for c in st.completions(run_id, "answer")
               if c.sample == 0}
    finally:
        st.close()
    return Answers(run_id, got)


def evaluate(target: str, data: Path, model: str, ctx: Context, max_tokens: int | None = None,
             samples: int = 1, temperature: float | None = None, judge: str | None = None) -> str:
    """Run benchmark ``target`` (``name[:subset]``) on the data file ``data`` with ``model``; the run id."""
    from ..core import registry

    name, subset = registry.parse_target(target)
    try:
        bench = registry.create(name, {"data": str(data)})
    except registry.UnknownBenchmark as e:
        raise BuildError(str(e)) from e
    params: GenParams = bench.default_params
    if max_tokens is not None:
        params = dataclasses.replace(params, max_tokens=max_tokens)
    if temperature is not None:
        params = dataclasses.replace(params, temperature=temperature)
    spec = RunSpec(name, subset, bench.default_mode, model, params, samples, 0, None, judge, bench.options,
                   data_version=bench.data_version())
    return _execute(bench, spec, ctx)
