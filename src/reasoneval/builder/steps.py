"""What a build step returns, and the registry of steps (name -> parameters class and function)."""

from __future__ import annotations

from collections.abc import Callable
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
class Step:
    name: str
    params: type
    run: StepFn
    help: str


STEPS: dict[str, Step] = {}


def step(name: str, params: type, help: str) -> Callable[[StepFn], StepFn]:
    def deco(fn: StepFn) -> StepFn:
        STEPS[name] = Step(name, params, fn, help)
        return fn

    return deco
