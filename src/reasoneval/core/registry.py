"""Benchmark registry: benchmarks are found through the ``reasoneval.benchmarks`` entry-point group.

A package (this one included) declares each benchmark once in its ``pyproject.toml``::

    [project.entry-points."reasoneval.benchmarks"]
    mybench = "mypackage.mybench:MyBench"

The core names no benchmark. ``register`` (a class decorator) and ``REASONEVAL_PLUGINS`` (comma-separated
module paths, imported on first use) remain for code that is not an installed distribution (tests,
notebooks).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .benchmark import Benchmark
from .options import BenchOptions

GROUP = "reasoneval.benchmarks"


class UnknownBenchmark(KeyError):
    def __str__(self) -> str:
        return f"unknown benchmark {self.args[0]!r}; known: {', '.join(names())}"


_FACTORIES: dict[str, Callable[[], Benchmark]] = {}
_INSTANCES: dict[str, Benchmark] = {}
_ENTRY_POINTS: dict[str, EntryPoint] | None = None


def register(name: str) -> Callable[[type[Benchmark]], type[Benchmark]]:
    def deco(cls: type[Benchmark]) -> type[Benchmark]:
        _FACTORIES[name] = cls
        return cls

    return deco


def _entry_points() -> dict[str, EntryPoint]:
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        _ENTRY_POINTS = {ep.name: ep for ep in entry_points(group=GROUP)}
    return _ENTRY_POINTS


def refresh() -> None:
    """Forget the entry points read so far (after installing a package in the same process)."""
    global _ENTRY_POINTS
    _ENTRY_POINTS = None


def _ensure(name: str) -> None:
    if name in _FACTORIES:
        return
    load_plugins()
    if name in _FACTORIES:
        return
    ep = _entry_points().get(name)
    if ep is None:
        raise UnknownBenchmark(name)
    obj = ep.load()
    if name not in _FACTORIES:  # the entry point names the class (or a factory); registering is optional
        if not callable(obj):
            raise TypeError(f"entry point {ep.value!r} of benchmark {name!r} is not a class or factory")
        _FACTORIES[name] = obj


def get(name: str) -> Benchmark:
    """The shared instance under default options (catalogue, listing)."""
    _ensure(name)
    if name not in _INSTANCES:
        _INSTANCES[name] = _FACTORIES[name]()
    return _INSTANCES[name]


def create(name: str, options: BenchOptions | Mapping[str, Any] | None = None) -> Benchmark:
    """A fresh instance configured with ``options`` (a run's own; never shared with other runs)."""
    _ensure(name)
    bench = _FACTORIES[name]()
    if options is not None:
        bench.configure(options)
    return bench


def for_run(run: Mapping[str, Any]) -> Benchmark:
    """The benchmark of a stored run, configured with the options the run was made with."""
    spec = run.get("spec") or {}
    return create(str(run["benchmark"]), dict(spec.get("options") or {}))


def load_plugins() -> None:
    """Import user benchmark modules named in REASONEVAL_PLUGINS (comma-separated module paths)."""
    for mod in filter(None, (m.strip() for m in os.environ.get("REASONEVAL_PLUGINS", "").split(","))):
        importlib.import_module(mod)


def names() -> list[str]:
    load_plugins()
    return sorted(set(_entry_points()) | set(_FACTORIES))


def parse_target(target: str) -> tuple[str, str | None]:
    """'mybench:hard' -> ('mybench', 'hard')."""
    name, _, subset = target.partition(":")
    return name, (subset or None)
