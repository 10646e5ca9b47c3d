"""``list`` (the benchmarks found through their entry points), ``generate`` (each benchmark's own generators,
added through ``Benchmark.cli``) and ``judge-audit``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core import registry
from .common import app, fail, options_help


@app.command("list")
def list_cmd() -> None:
    """List benchmarks with their subsets and modes."""
    for name in registry.names():
        b = registry.get(name)
        typer.echo(f"{name}: {b.description}")
        typer.echo(f"  subsets: {', '.join(b.subsets())}")
        typer.echo(f"  modes:   {', '.join(b.modes())} (default {b.default_mode})")
        typer.echo(f"  options: {options_help(b)}")
        from ..core.presets import presets_for

        presets = presets_for(b)
        if presets:
            typer.echo(f"  settings: {', '.join(presets)} (--settings NAME)")


generate_app = typer.Typer(no_args_is_help=True, help=(
    "Make fresh, contamination-free items (JSON lines on stdout): one generator per subcommand, each added by "
    "its benchmark."))


@app.command("judge-audit")
def judge_audit(
    predictions: Annotated[Path, typer.Argument(help="JSONL with judge verdicts")],
    human: Annotated[Path, typer.Argument(help="JSONL with human labels")],
) -> None:
    """Agreement and confusion table between judge verdicts and human labels."""
    from ..scoring.judge import judge_audit as audit

    try:
        typer.echo(audit(str(predictions), str(human)))
    except (ValueError, OSError, KeyError) as e:
        fail(str(e))


