"""Command-line entry points (typer). The lead wires ``app`` into the main CLI.

    label PATH                      re-label a states file (release schema) with the exact solver
    generate PUZZLE --n --seed      N new states in release schema (see ``generate.generate_states``)
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .data import DataError, load_states, puzzle_of_path, write_jsonl
from .engines import PUZZLES
from .engines.base import StateError
from .generate import generate_states
from .label import label_records

app = typer.Typer(help="FineReason puzzles: labels and state generation.", no_args_is_help=True)


@app.command("label")
def label_cmd(
    path: Annotated[str, typer.Argument(help="a *_states.json file (JSON lines, release schema)")],
    puzzle: Annotated[str | None, typer.Option(help="puzzle; default: from the file name")] = None,
) -> None:
    """Write PATH to stdout with outputs.current_status recomputed by the exact solver."""
    try:
        puz = puzzle or puzzle_of_path(path)
        records = load_states(puz, path, require_label=False)
        labels = label_records(puz, records)
    except (DataError, StateError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    changed = 0
    for rec, lab in zip(records, labels, strict=True):
        out = rec.setdefault("outputs", {})
        changed += out.get("current_status") != lab
        out["current_status"] = lab
    write_jsonl(records, sys.stdout)
    typer.echo(f"labelled {len(records)} states; {changed} label(s) changed", err=True)


@app.command("generate")
def generate_cmd(
    puzzle: Annotated[str, typer.Argument(help=f"one of {', '.join(PUZZLES)}")],
    n: Annotated[int, typer.Option(help="number of states")] = 500,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    from_path: Annotated[str | None, typer.Option(help="a *_questions.json file to take puzzles from "
                                                       "(gridpuzzle default: the released questions)")] = None,
) -> None:
    """Write N states of PUZZLE in the release schema to stdout."""
    if puzzle not in PUZZLES:
        typer.echo(f"error: unknown puzzle {puzzle!r}; expected one of {', '.join(PUZZLES)}", err=True)
        raise typer.Exit(2)
    try:
        records = generate_states(puzzle, n, seed, from_path)
    except (DataError, StateError, ValueError, RuntimeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    write_jsonl(records, sys.stdout)
    if len(records) < n:
        typer.echo(f"warning: only {len(records)} states could be sampled", err=True)


if __name__ == "__main__":  # pragma: no cover
    app()
