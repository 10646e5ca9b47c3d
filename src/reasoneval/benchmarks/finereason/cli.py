"""Command-line entry points (typer), added to the main CLI by ``FineReason.cli`` (``add_commands``).

    label PATH                      re-label a states file (release schema) with the exact solver
    generate PUZZLE --n --seed      N new states in release schema (see ``generate.generate_states``)
    export MATH --total N ...       SFT/RL training mix of puzzle SC/ST samples and math (``export.py``)
    sweep RECIPE OUTDIR             every mix of the paper's sweeps, each with a manifest (``sweep.py``)
    transfer RUN... --label L=RUN   GSM8K/MATH/MMLU runs of checkpoints as Tables 5-7, 11-12, Figs. 6-7 (``transfer.py``)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ...cli.common import DEFAULT_STORE, JsonOpt, StoreOpt
from .data import DataError, load_states, puzzle_of_path, write_jsonl
from .engines import PUZZLES
from .engines.base import StateError
from .generate import generate_states
from .label import label_records

TRAIN = "sudoku,graphcoloring,game24"
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


def questions_cmd(puzzle: str, n: int, seed: int, difficulty: list[str], from_path: str | None = None) -> None:
    """Write N fresh end-to-end question records of PUZZLE (release schema) to stdout (``questions.py``)."""
    from .questions import generate_questions, parse_difficulty

    try:
        records = generate_questions(puzzle, n, seed, parse_difficulty(puzzle, difficulty), from_path)
    except (DataError, StateError, ValueError, RuntimeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    write_jsonl(records, sys.stdout)
    typer.echo(f"wrote {len(records)} {puzzle} question(s); run them with `reasoneval run finereason:{puzzle} "
               f"--mode end-to-end --data FILE`", err=True)


@app.command("questions")
def questions_typer(
    puzzle: Annotated[str, typer.Argument(help=f"one of {', '.join(PUZZLES)}")],
    n: Annotated[int, typer.Option(min=1, help="number of questions")] = 50,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    difficulty: Annotated[list[str] | None, typer.Option("--difficulty", "-D", help=(
        "knob=value: sudoku empty=45-49; graphcoloring vertices=15-25, density=0.3-0.8, colors=5-13; "
        "game24 numbers=1-13"))] = None,
    from_path: Annotated[str | None, typer.Option("--from", help="gridpuzzle: a *_questions.json to re-check")] = None,
) -> None:
    """Write N fresh end-to-end questions of PUZZLE (release schema, JSON lines) to stdout."""
    questions_cmd(puzzle, n, seed, difficulty or [], from_path)


@app.command("export")
def export_cmd(
    math: Annotated[str, typer.Argument(help="math data: a JSONL / JSON / Parquet file (MetaMathQA query/response, "
                                             "question/answer, ...) or hub:metamathqa[@REV] from the Hub")],
    total: Annotated[int, typer.Option(help="samples in the mix")] = 2000,
    math_ratio: Annotated[float, typer.Option(help="r_m: share of math samples")] = 0.8,
    unsolvable_ratio: Annotated[float, typer.Option(help="r_u: share of unsolvable states among puzzles")] = 0.5,
    sc_ratio: Annotated[float, typer.Option(help="share of state-checking among puzzle samples")] = 0.5,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    puzzles: Annotated[str, typer.Option(help="comma-separated puzzles (paper: no gridpuzzle)")] = TRAIN,
    states: Annotated[list[str] | None, typer.Option(
        help="<puzzle>_states.json file(s) to draw the puzzle samples from instead of freshly generated states "
             "(their puzzles replace --puzzles; never the released test states)")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="hub:...: use the local HF cache only")] = False,
    fmt: Annotated[str, typer.Option("--format", help="trl: the mix's columns (TRL, SFT); verl: verl's RL rows "
                                                      "(data_source, prompt, reward_model, extra_info)")] = "trl",
) -> None:
    """Write the training mix (chat JSONL with a verifiable ``answer``; ``reasoneval.rewards`` columns) to stdout."""
    if fmt not in ("trl", "verl"):
        typer.echo(f"error: unknown --format {fmt!r}; expected trl or verl", err=True)
        raise typer.Exit(2)
    from .export import MixConfig, build_mix, training_states, write_mix
    from .mathdata import resolve_math

    names = parse_puzzles(puzzles)
    try:
        cfg = MixConfig(total, math_ratio, unsolvable_ratio, sc_ratio, seed)
        pool: dict[str, list[dict[str, Any]]] = {}
        for path in states or []:
            puz = puzzle_of_path(path)
            pool.setdefault(puz, []).extend(load_states(puz, path))
        samples = resolve_math(math, offline=offline or None).load()
        if not states:
            from ...cli.bars import bars

            with bars("puzzle states") as (tick,):
                pool = training_states(cfg, names, progress=tick)
        mix = build_mix(samples, pool, cfg)
    except (DataError, StateError, ValueError, RuntimeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    out = mix
    if fmt == "verl":
        from .rewards import verl_row

        out = [verl_row(r, i) for i, r in enumerate(mix)]
    n = write_mix(out, sys.stdout)
    typer.echo(f"wrote {n} samples", err=True)
    warn_no_gold(mix)


@app.command("sweep")
def sweep_cmd(
    recipe: Annotated[str, typer.Argument(help="a recipe YAML, or 'paper' (the packaged section-5 sweeps)")],
    outdir: Annotated[str, typer.Argument(help="folder for <sweep>/<mix>.jsonl + .manifest.json and index.json")],
    only: Annotated[list[str] | None, typer.Option("--only", help="build only these sweeps (repeatable)")] = None,
    math: Annotated[str | None, typer.Option(help="math data instead of the recipe's (file or hub:metamathqa)")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="hub:...: use the local HF cache only")] = False,
    list_only: Annotated[bool, typer.Option("--list", help="print the mixes and their sample counts; build nothing")] = False,
) -> None:
    """Build every training mix of a recipe (the paper's r_m, r_u and sample-count sweeps), each with a manifest."""
    from pathlib import Path

    from .mathdata import resolve_math
    from .sweep import load_recipe, select

    try:
        rec = load_recipe(recipe)
        mixes = select(rec, only)
        if list_only:
            for m in mixes:
                c = m.config
                n_math = round(c.total * c.math_ratio)
                typer.echo(f"{m.key}: total {c.total}, math {n_math}, puzzle {c.total - n_math} "
                           f"(r_m {c.math_ratio:g}, r_u {c.unsolvable_ratio:g}, sc {c.sc_ratio:g}, seed {c.seed})")
            return
        src = resolve_math(math or rec.math, offline=offline or None)
        samples = src.load()
        from ...cli.bars import bars
        from .sweep import run_sweep

        with bars("puzzle states", "mixes") as (states_tick, mix_tick):
            mans = run_sweep(rec, Path(outdir), mixes, samples, src.provenance, log=lambda s: typer.echo(s, err=True),
                             pool_progress=states_tick, mix_progress=mix_tick)
    except (DataError, StateError, ValueError, RuntimeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"wrote {len(mans)} mixes to {outdir} (index.json)", err=True)
    no_gold = sum(m["counts"]["math_without_gold"] for m in mans)
    if no_gold:
        typer.echo(f"warning: {no_gold} math sample(s) across the mixes have no final answer the math reward "
                   "can read; they score 0 in RL", err=True)


def warn_no_gold(mix: list[dict[str, Any]]) -> None:
    no_gold = sum(m["source"] == "math" and m["gold"] is None for m in mix)
    if no_gold:
        typer.echo(f"warning: {no_gold} math sample(s) have no final answer the math reward can read "
                   "(\\boxed{...}, 'The answer is: ...', '#### ...'); they score 0 in RL", err=True)


def parse_puzzles(puzzles: str) -> list[str]:
    names = [p.strip() for p in puzzles.split(",") if p.strip()]
    bad = [p for p in names if p not in PUZZLES]
    if bad:
        typer.echo(f"error: unknown puzzle(s) {', '.join(bad)}; expected {', '.join(PUZZLES)}", err=True)
        raise typer.Exit(2)
    return names


@app.command("transfer")
def transfer_cmd(
    runs: Annotated[list[str] | None, typer.Argument(help="run ids (or unique prefixes) of gsm8k/math/mmlu runs")] = None,
    label: Annotated[list[str] | None, typer.Option("--label", "-l", help=(
        "LABEL=RUN[,RUN...]: the runs of one checkpoint; LABEL is ROLE[@SIZE][:rm=R,ru=R,n=N], ROLE one of "
        "base, math-only, mmlu-only, mixed (e.g. mixed@7B, mixed:rm=0.6, math-only:n=7.5k)"))] = None,
    store: StoreOpt = DEFAULT_STORE,
    md: Annotated[Path | None, typer.Option(help="also write the tables as Markdown")] = None,
    plots: Annotated[Path | None, typer.Option(help="also draw Figs. 6-7 as fig6.png / fig7.png in this folder")] = None,
    json_out: JsonOpt = False,
) -> None:
    """FineReason's transfer tables (paper Tables 5-7, 11-12, Figs. 6-7) over runs of several checkpoints,
    the paper's numbers beside ours."""
    import json

    from ...report import render
    from ...store.errors import StoreError
    from ...store.sqlite import RunStore
    from .transfer import measure, tables

    pairs: list[tuple[str | None, str]] = []
    for spec in label or []:
        name, eq, refs = spec.rpartition("=")
        if not eq or not name.strip() or not refs.strip():
            typer.echo(f"error: --label {spec!r}: expected LABEL=RUN[,RUN...]", err=True)
            raise typer.Exit(2)
        pairs += [(name.strip(), r.strip()) for r in refs.split(",") if r.strip()]
    labelled = {ref for _, ref in pairs}
    pairs += [(None, r) for r in runs or [] if r not in labelled]
    if not pairs:
        typer.echo("error: no runs: give RUN ids and/or --label LABEL=RUN", err=True)
        raise typer.Exit(2)
    if not store.exists():
        typer.echo(f"error: no store at {store}: point --store / REASONEVAL_STORE at one", err=True)
        raise typer.Exit(2)
    try:
        measured = measure(RunStore(store, readonly=True), pairs)
    except (ValueError, StoreError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    out = tables(measured)
    if md:
        md.write_text(render.to_markdown(out), encoding="utf-8")
        typer.echo(f"wrote {md}", err=True)
    if plots:
        from .transfer_plots import write_plots

        try:
            for path in write_plots(out, plots):
                typer.echo(f"wrote {path}", err=True)
        except (ValueError, OSError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
    if json_out:
        typer.echo(json.dumps({"tables": [t.to_json() for t in out]}, ensure_ascii=False, indent=1))
    else:
        render.to_terminal(out)


if __name__ == "__main__":  # pragma: no cover
    app()


def generate_finereason(
    puzzle: Annotated[str | None, typer.Option(help="sudoku | graphcoloring | game24 | gridpuzzle")] = None,
    n: Annotated[int, typer.Option("--n", help="how many")] = 10,
    seed: int = 0,
    from_path: Annotated[str | None, typer.Option("--from", help="questions file (gridpuzzle)")] = None,
    questions: Annotated[bool, typer.Option("--questions", help="end-to-end questions, not states")] = False,
    difficulty: Annotated[list[str] | None, typer.Option("--difficulty", "-D", help=(
        "--questions knob=value: sudoku empty=45-49; graphcoloring vertices=15-25, density=0.3-0.8, "
        "colors=5-13; game24 numbers=1-13"))] = None,
) -> None:
    """Fresh puzzle states (or, with --questions, end-to-end questions), JSON lines on stdout."""
    if puzzle not in ("sudoku", "graphcoloring", "game24", "gridpuzzle"):
        typer.echo("error: --puzzle must be one of sudoku, graphcoloring, game24, gridpuzzle", err=True)
        raise typer.Exit(2)
    if questions:
        questions_cmd(puzzle, n, seed, difficulty or [], from_path)
    else:
        generate_cmd(puzzle, n, seed, from_path)


def add_commands(groups: Any) -> None:
    """``reasoneval finereason ...`` and ``reasoneval generate finereason``."""
    groups.root.add_typer(app, name="finereason", help="FineReason tools: label, generate, export, sweep, transfer")
    groups.generate.command("finereason")(generate_finereason)
