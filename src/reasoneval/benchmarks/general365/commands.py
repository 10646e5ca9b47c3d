"""General365's ``reasoneval build variants``: model-written variants of the seed problems."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ...cli.build import ConcOpt, ParamOpt, ReportOpt, extra_params, run_step
from ...cli.common import DEFAULT_STORE, StoreOpt


def variants(
    inp: Annotated[Path, typer.Argument(help="General365 seed rows (id, question, answer, answer_type, ...)")],
    out: Annotated[Path, typer.Argument()],
    model: Annotated[str, typer.Option(help="model that writes the variants")],
    n: Annotated[int, typer.Option("--n", min=1, help="variants per seed")] = 3,
    seed: int = 0,
    keep_seeds: bool = False,
    store: StoreOpt = DEFAULT_STORE, concurrency: ConcOpt = 16, report: ReportOpt = None, param: ParamOpt = None,
) -> None:
    """General365: N model-written variants per seed (select with difficulty and dedup, e.g. in a recipe)."""
    run_step("variants", inp, out, {"model": model, "n": n, "seed": seed, "keep_seeds": keep_seeds,
                                    **extra_params(param)}, store, concurrency, report)


def add_commands(groups: Any) -> None:
    groups.build.command()(variants)
