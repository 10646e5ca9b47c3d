"""The ``reasoneval`` app with every command on it, and :func:`main`: importing this module registers the generic
commands (this package's modules); each benchmark's own (``Benchmark.cli``; none is named here) are added by
:func:`with_benchmark_commands`, which ``reasoneval.cli.app`` returns, and which :func:`main` skips when the command
line's command is a generic one (``report``, ``run``, ...: importing every plugin costs a command that needs at most
one of them ~0.1-0.2 s). ``reasoneval.cli.app`` / ``reasoneval.cli.main`` load this module on first use
(``cli/__init__.py``)."""

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


_GENERIC = frozenset(
    [c.name or (c.callback.__name__.replace("_", "-") if c.callback else "") for c in app.registered_commands]
    + [g.name or "" for g in app.registered_groups]) - {"generate", "build", ""}  # these two benchmarks extend
_loaded = False


def with_benchmark_commands() -> typer.Typer:
    """The app with each benchmark's own commands on it too (added once)."""
    global _loaded
    if not _loaded:
        _loaded = True
        _benchmark_commands()
    return app


def needs_benchmark_commands(argv: list[str]) -> bool:
    """Whether a command line may name a benchmark's own command: not when its command is a generic one
    (``report``, ``run``, ...), whose parsing needs no other command, so importing every plugin is skipped."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first is None or first not in _GENERIC


def main() -> None:
    from ..store.errors import StoreError

    full = needs_benchmark_commands(sys.argv[1:])
    try:
        (with_benchmark_commands() if full else app)()
    except StoreError as e:  # a store that cannot be opened, read or written: one line, not a traceback
        from ..core.safetext import shown

        typer.echo(f"error: {shown(e, keep_newlines=True)}", err=True)
        sys.exit(2)
