"""R-Bench's ``reasoneval build`` commands: ``options`` (paper §2.4 option generation) and ``translate``
(EN<->ZH with a round-trip check)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ...cli.build import ConcOpt, ParamOpt, ReportOpt, extra_params, run_step
from ...cli.common import DEFAULT_STORE, StoreOpt


def options(
    inp: Annotated[Path, typer.Argument(help="rows: id, question, answer (free text), [lang, subject, ...]")],
    out: Annotated[Path, typer.Argument(help="R-Bench rows (e.g. rbench-t_en.jsonl)")],
    model: Annotated[str, typer.Option(help="model that writes the options")],
    seed: int = 0,
    min_gap: Annotated[float, typer.Option(help="relative gap numeric options keep")] = 0.05,
    store: StoreOpt = DEFAULT_STORE, concurrency: ConcOpt = 16, report: ReportOpt = None, param: ParamOpt = None,
) -> None:
    """R-Bench options: five model-written + the fixed 'All other answers are incorrect', shuffled with a seed."""
    run_step("options", inp, out, {"model": model, "seed": seed, "min_gap": min_gap, **extra_params(param)}, store,
             concurrency, report)


def translate(
    inp: Annotated[Path, typer.Argument()],
    out: Annotated[Path, typer.Argument(help="translated rows (e.g. rbench-t_zh.jsonl)")],
    model: Annotated[str, typer.Option(help="translating model")],
    to: Annotated[str, typer.Option(help="en | zh")] = "zh",
    back_model: Annotated[str | None, typer.Option(help="model of the back-translation (default: --model)")] = None,
    threshold: Annotated[float, typer.Option(help="round-trip similarity a translation needs")] = 0.8,
    on_fail: Annotated[str, typer.Option(help="drop | keep (marked)")] = "drop",
    store: StoreOpt = DEFAULT_STORE, concurrency: ConcOpt = 16, report: ReportOpt = None, param: ParamOpt = None,
) -> None:
    """Translate EN<->ZH with a model; round-trip consistency check (back-translation compared)."""
    run_step("translate", inp, out, {"model": model, "to": to, "back_model": back_model, "threshold": threshold,
                                     "on_fail": on_fail, **extra_params(param)}, store, concurrency, report)


def add_commands(groups: Any) -> None:
    groups.build.command()(options)
    groups.build.command()(translate)
