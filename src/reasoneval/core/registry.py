"""Benchmark registry: each benchmark is declared once and found by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .benchmark import Benchmark


class UnknownBenchmark(KeyError):
    def __str__(self) -> str:
        return f"unknown benchmark {self.args[0]!r}; known: {', '.join(sorted(_FACTORIES))}"


_FACTORIES: dict[str, Callable[[], Benchmark]] = {}
_INSTANCES: dict[str, Benchmark] = {}

# module path of each built-in benchmark; imported lazily so `reasoneval list` stays fast
_BUILTIN = {
    "korbench": "reasoneval.benchmarks.korbench.benchmark",
    "finereason": "reasoneval.benchmarks.finereason.benchmark",
    "rbench": "reasoneval.benchmarks.rbench.benchmark",
    "general365": "reasoneval.benchmarks.general365.benchmark",
}


def register(name: str) -> Callable[[type[Benchmark]], type[Benchmark]]:
    def deco(cls: type[Benchmark]) -> type[Benchmark]:
        _FACTORIES[name] = cls
        return cls

    return deco


def _ensure(name: str) -> None:
    if name in _FACTORIES:
        return
    load_plugins()
    if name in _FACTORIES:
        return
    mod = _BUILTIN.get(name)
    if mod is None:
        raise UnknownBenchmark(name)
    try:
        importlib.import_module(mod)
    except ModuleNotFoundError as e:
        if e.name and e.name.startswith("reasoneval.benchmarks"):
            raise UnknownBenchmark(name) from e
        raise
    if name not in _FACTORIES:
        raise UnknownBenchmark(name)


def get(name: str) -> Benchmark:
    _ensure(name)
    if name not in _INSTANCES:
        _INSTANCES[name] = _FACTORIES[name]()
    return _INSTANCES[name]


def load_plugins() -> None:
    """Import user benchmark modules named in REASONEVAL_PLUGINS (comma-separated module paths)."""
    import os

    for mod in filter(None, (m.strip() for m in os.environ.get("REASONEVAL_PLUGINS", "").split(","))):
        importlib.import_module(mod)


def names() -> list[str]:
    load_plugins()
    out = []
    for n in sorted(set(_BUILTIN) | set(_FACTORIES)):
        try:
            _ensure(n)
            out.append(n)
        except UnknownBenchmark:
            continue
    return out


def parse_target(target: str) -> tuple[str, str | None]:
    """'korbench:cipher' -> ('korbench', 'cipher')."""
    name, _, subset = target.partition(":")
    return name, (subset or None)
