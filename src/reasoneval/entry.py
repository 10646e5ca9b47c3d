"""The ``reasoneval`` console script: starts what a command needs first, then hands over to :mod:`.cli`.

A benchmark package may define ``prestart(argv)`` in its ``__init__`` (declared as
:data:`reasoneval.core.benchmark.Prestart`): it is called with the command line when the second word names that
benchmark (``reasoneval rescore BENCH ...``), before the CLI's own imports and before the benchmark's class is
imported, to start something slow whose start-up can overlap them (e.g. a pool of SymPy sandbox workers). The
benchmark is found through its entry point, as everywhere else.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def _prestart(argv: list[str]) -> None:
    if len(argv) < 2 or "--help" in argv or argv[1].startswith("-"):
        return
    from importlib.metadata import entry_points

    for ep in entry_points(group="reasoneval.benchmarks", name=argv[1].partition(":")[0]):
        package = ep.value.partition(":")[0].rpartition(".")[0]
        hook: Callable[[list[str]], None] | None = getattr(importlib.import_module(package), "prestart", None)
        if hook is not None:
            hook(argv)
        return


def main() -> None:
    try:
        _prestart(sys.argv[1:])
    except Exception:  # noqa: BLE001 - an optimisation only; the command itself reports real problems
        pass
    from .cli import main as cli_main

    cli_main()
