"""The ``reasoneval`` app with every command on it, and :func:`main`: importing this module registers the commands
(the generic ones of this package's modules, then each benchmark's own through ``Benchmark.cli``; none is named
here). ``reasoneval.cli.app`` / ``reasoneval.cli.main`` load it on first use (``cli/__init__.py``)."""

from __future__ import annotations

import sys

import typer

from ..core import registry
from . import catalogue, run, tables
from .build import app as build_app
from .common import CommandGroups, app
from .data import app as data_app
from .runs import register as register_runs
from .stats import register as register_stats

__all__ = ["app", "main"]

_ = (run, tables)  # their commands are registered on import
app.add_typer(data_app, name="data")
register_stats(app)
register_runs(app)
app.add_typer(build_app, name="build")
app.add_typer(catalogue.generate_app, name="generate")


def _benchmark_commands() -> None:
    groups = CommandGroups(app, catalogue.generate_app, build_app)
    for name in registry.names():
        try:
            bench = registry.get(name)
        except Exception as e:  # noqa: BLE001 - a broken plugin must not take the whole CLI down
            print(f"warning: benchmark {name!r} could not be loaded: {e}", file=sys.stderr)
            continue
        bench.cli(groups)


_benchmark_commands()


def main() -> None:
    from ..store.errors import StoreError

    try:
        app()
    except StoreError as e:  # a store that cannot be opened, read or written: one line, not a traceback
        from ..core.safetext import shown

        typer.echo(f"error: {shown(e, keep_newlines=True)}", err=True)
        sys.exit(2)
