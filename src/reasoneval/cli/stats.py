"""CLI commands for statistics and dataset tables: ``compare``, ``correlate``, ``ablation``, ``stats``.

Attached to the main app by ``register(app)`` (``cli/commands.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import DEFAULT_STORE, JsonOpt, StoreOpt, benchmark_names

SeedOpt = Annotated[int, typer.Option(help="seed of the bootstrap / random draws")]


def _views(store: Path, refs: list[str]) -> list[Any]:
    from ..report import collect
    from . import common as cli

    st = cli.existing_store(store, readonly=True)
    try:
        return [collect.view(st, r, slim=True) for r in refs]  # statistics read verdicts, never texts
    except collect.RunNotFound as e:
        cli.fail(str(e.args[0]))
    except collect.PluginError as e:  # a benchmark's bug is its error, not a missing run
        cli.fail(str(e))


def _emit(tables: list[Any], json_out: bool) -> None:
    from ..report import render

    if json_out:
        typer.echo(json.dumps([t.to_json() for t in tables], ensure_ascii=False, indent=1))
    else:
        render.to_terminal(tables)


def compare(
    run_a: Annotated[str, typer.Argument(help="run A (id or unique prefix)")],
    run_b: Annotated[str, typer.Argument(help="run B")],
    store: StoreOpt = DEFAULT_STORE,
    boot: Annotated[int, typer.Option(min=100, help="bootstrap resamples")] = 2000,
    seed: SeedOpt = 0,
    json_out: JsonOpt = False,
) -> None:
    """Paired difference A - B on the items both runs scored: CI, bootstrap and exact McNemar p-values."""
    from ..report.stats_tables import compare_table

    a, b = _views(store, [run_a, run_b])
    t = compare_table(a, b, boot, seed)
    if not t.rows:
        from .common import fail

        fail(f"runs {a.run['run_id']} and {b.run['run_id']} have no scored item in common")
    _emit([t], json_out)


def correlate(
    runs: Annotated[list[str], typer.Argument(help="runs of several models (and benchmarks)")],
    store: StoreOpt = DEFAULT_STORE,
    seed: SeedOpt = 0,
    scores: Annotated[Path | None, typer.Option(help="per-model scores of other benchmarks (CSV model,<bench>,... or JSON)")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Pearson and Spearman correlation across models: between benchmarks, or between one benchmark's subsets;
    with --scores, also against other benchmarks' per-model scores (published ones, a CSV or JSON file)."""
    from ..report.stats_tables import correlation_table, external_scores

    external = None
    if scores is not None:
        from .common import fail

        try:
            external = external_scores(scores)
        except (OSError, ValueError, UnicodeDecodeError) as e:
            fail(str(e))
    _emit([correlation_table(_views(store, runs), seed, external)], json_out)


def ablation(
    runs: Annotated[list[str], typer.Argument(help="run ids")],
    store: StoreOpt = DEFAULT_STORE,
    reps: Annotated[int, typer.Option(min=10, help="random draws per size")] = 200,
    size: Annotated[list[int] | None, typer.Option(min=1, help="items per subset (repeatable; default 10%..100%)")] = None,
    seed: SeedOpt = 0,
    json_out: JsonOpt = False,
) -> None:
    """Dataset-size ablation: accuracy on random subsets of each subset, mean and spread over draws."""
    from ..report.stats_tables import ablation_table

    _emit([ablation_table(_views(store, runs), reps, seed, size or None)], json_out)


def stats_cmd(
    benchmark: Annotated[str, typer.Argument(help=benchmark_names())],
    data: Annotated[str | None, typer.Option(help="dataset folder (default: the benchmark's)")] = None,
    outputs: Annotated[Path | None, typer.Option(help="raw model outputs (in the layout of the benchmark's release) for output-token stats")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Dataset tables: each benchmark's own (``Benchmark.dataset_tables``: the papers' dataset statistics);
    item counts per subset everywhere."""
    from ..report.dataset_stats import dataset_tables
    from .common import fail

    try:
        tables = dataset_tables(benchmark, data, outputs)
    except (FileNotFoundError, ValueError, KeyError) as e:
        fail(str(e.args[0]) if isinstance(e, KeyError) else str(e))
    _emit(tables, json_out)


def register(app: typer.Typer) -> None:
    app.command()(compare)
    app.command()(correlate)
    app.command()(ablation)
    app.command("stats")(stats_cmd)
