"""What every command shares, defined once: the app, ``--store``, ``-O`` options, ``--json`` output, failing with
one line, opening a store, a benchmark with its options, the report printed after a command."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from ..core import registry

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help=f"Reasoning benchmark evaluation ({', '.join(registry.names())}).")

StoreOpt = Annotated[Path, typer.Option("--store", envvar="REASONEVAL_STORE", help="SQLite run store")]
DEFAULT_STORE = Path("reasoneval.db")


def fail(msg: str, code: int = 2) -> NoReturn:
    from ..core.safetext import shown

    typer.echo(f"error: {shown(msg, keep_newlines=True)}", err=True)  # file and model names are outside text
    raise typer.Exit(code)


def existing_store(path: Path, readonly: bool = False) -> Any:
    """Open a store that must already exist: commands that read runs never create an empty one.
    ``readonly``: nothing is created or changed (works on read-only files and file systems)."""
    from ..store.sqlite import RunStore

    if not path.exists():
        fail(f"no store at {path}: run `reasoneval run ...` first, or point --store / REASONEVAL_STORE at one")
    return RunStore(path, readonly=readonly)


def bench_named(name: str) -> Any:
    try:
        return registry.get(name)
    except registry.UnknownBenchmark as e:
        fail(str(e))


def options_help(bench: Any) -> str:
    """``key=default`` for each of a benchmark's options (``-O key=value``)."""
    return ", ".join(f"{k}={v}" for k, v in bench.Options().to_json().items())


OptionsOpt = Annotated[list[str] | None, typer.Option(
    "--option", "-O", help="benchmark option key=value, repeatable (e.g. -O scoring=corrected; "
                           "`reasoneval list` shows each benchmark's options)")]


def bench_with_options(name: str, pairs: list[str] | None, data: str | None) -> Any:
    """A fresh instance of benchmark ``name`` with its typed options from ``-O`` and ``--data``."""
    from ..core.errors import OptionError

    base = bench_named(name)
    try:
        opts = base.Options.parse(pairs or [], data, benchmark=name)
    except OptionError as e:
        fail(str(e))
    return registry.create(name, opts)


def print_report(st: Any, refs: list[str], json_out: bool, scorer: str = "default", ci: bool = False,
            prompts: bool = True, prices: Any = None) -> None:
    """``prompts=False`` (the table after a run: the prompts were just written and tables never show them)
    reads compact rows (``collect.slim_rows``: no prompts, no texts, memory that does not grow with the texts);
    ``report`` reads every prompt, so a damaged one is reported."""
    from ..core.safetext import json_shown, shown
    from ..core.tokens import show_count
    from ..report import collect, render

    try:
        views = [collect.view(st, r, scorer, prompts, slim=not prompts) for r in refs]
    except KeyError as e:
        fail(str(e.args[0]))
    tables = collect.merge(views)
    from ..report.paper_tables import extra_tables

    tables += extra_tables(views)  # paper tables that span several runs (a benchmark's ``paper_tables``)
    if ci:
        from ..report.stats_tables import ci_table

        tables.append(ci_table(views))
    from ..report.addons import addon_tables

    tables += addon_tables(views, prices)  # samples (pass@k, maj@k) and, with --prices, cost
    with stdout_guard():
        if json_out:
            typer.echo(json_shown({"runs": [{"run": v.run, "stats": v.stats} for v in views],
                                   "tables": [t.to_json() for t in tables]}, indent=1))
        else:
            render.to_terminal(tables)
            for v in views:
                s = v.stats
                n = len({r.item_key for r in v.rows})  # items, not item x sample answers
                answers = f" ({s['items']} answers)" if s["items"] != n else ""
                spec = v.run.get("spec") or {}
                origin = f" ({spec['protocol']})" if isinstance(spec, dict) and spec.get("protocol") else ""
                typer.echo(f"{shown(v.run['run_id'])} {shown(v.run['model'])}{shown(origin)}: {n} items{answers}, "
                           f"{s['errors']} errors, "
                           f"{s['unextractable']} unextractable ({s['truncated']} truncated), "
                           f"{show_count(s['prompt_tokens'])}+{show_count(s['completion_tokens'])} tokens"
                           + (f" ({unknown} of {s['calls']} calls without usage)"
                              if (unknown := max(s.get('prompt_tokens_unknown') or 0,
                                                 s.get('completion_tokens_unknown') or 0)) else ""))
        sys.stdout.flush()


@contextlib.contextmanager
def stdout_guard() -> Iterator[None]:
    """Printing to a standard output that is a full device or a closed pipe (``> /dev/full``, ``| head``) is one
    line (or, for a reader that is gone, nothing), not a traceback."""
    try:
        yield
    except OSError as e:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more reaches the broken output
        if isinstance(e, BrokenPipeError):
            raise typer.Exit(0) from None
        fail(f"cannot write to standard output: {e.strerror or e}")



JsonOpt = Annotated[bool, typer.Option("--json", help="print the result as JSON")]


@dataclass(frozen=True)
class CommandGroups:
    """Where a benchmark adds its commands (``Benchmark.cli``)."""

    root: typer.Typer
    generate: typer.Typer
    build: typer.Typer


def benchmark_names() -> str:
    """``a | b | c``: the registered benchmarks, for help texts (read from the entry points, never written out)."""
    return " | ".join(registry.names())
