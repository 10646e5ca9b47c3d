"""The benchmarks' own reward functions (``Benchmark.rewards()``), found through the registry."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from ..core import registry


def _of(name: str) -> Mapping[str, Callable[..., Any]]:
    try:
        return registry.get(name).rewards()
    except (KeyError, ImportError):  # not a benchmark (a data source such as openai/gsm8k), or not installed
        return {}


@functools.cache
def for_source(source: str, key: str) -> Callable[..., Any] | None:
    """The ``key`` reward (``verl.compute_score``, ``verl.verl_row``) of the benchmark named ``source``."""
    return _of(source).get(key)


@functools.cache
def by_name(name: str) -> Callable[..., Any] | None:
    """The reward function some benchmark offers under ``name``; the benchmarks whose name begins ``name`` are
    asked first (only they are imported when one of them has it)."""
    names = registry.names()
    for bench in sorted(names, key=lambda b: not name.startswith(b)):
        fn = _of(bench).get(name)
        if fn is not None:
            return fn
    return None
