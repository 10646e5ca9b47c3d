"""``reasoneval build``: the papers' construction steps as commands, and ``build recipe`` to chain them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..builder.calls import Context
from ..builder.params import from_mapping
from ..builder.rows import BuildError, read_rows, write_rows
from .common import DEFAULT_STORE, StoreOpt

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Build a new version of a benchmark: filters, options, translation, variants, recipes.")

ConcOpt = Annotated[int, typer.Option(min=1, help="requests in flight")]
ReportOpt = Annotated[Path | None, typer.Option("--report", help="write the step's report (JSON) here")]
ParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help="more step parameters key=value (YAML values)")]


def _fail(msg: str) -> typer.Exit:
    typer.echo(f"error: {msg}", err=True)
    return typer.Exit(2)


def extra_params(pairs: list[str] | None) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs or []:
        k, eq, v = pair.partition("=")
        if not eq or not k.strip():
            raise _fail(f"-p {pair!r}: expected key=value")
        out[k.strip()] = yaml.safe_load(v) if v.strip() else None
    return out


def run_step(name: str, inp: Path | None, out: Path, values: dict[str, Any], store: Path, concurrency: int,
             report: Path | None, progress: bool = False) -> None:
    """Read ``inp``, run step ``name``, write ``out``; print a summary and write the report."""
    from ..builder.catalog import all_steps

    steps = all_steps()
    ctx = Context(store=store, concurrency=concurrency, progress=progress, workdir=out.parent / "build-work")
    try:
        params: Any = from_mapping(steps[name].params, name, {k: v for k, v in values.items() if v is not None})
        rows = read_rows(inp) if inp is not None else []
        res = steps[name].run(rows, params, ctx)
    except (BuildError, FileNotFoundError, ValueError) as e:
        raise _fail(str(e)) from None
    write_rows(out, res.rows)
    for extra_name, extra_rows in res.extra.items():
        write_rows(out.parent / extra_name, extra_rows)
    doc = {"step": name, "rows_in": len(rows), "rows_out": len(res.rows), "runs": ctx.runs, "report": res.report}
    if report is not None:
        report.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    brief = {k: v for k, v in res.report.items() if not isinstance(v, dict | list) or k in ("dropped", "runs")}
    typer.echo(f"{name}: {len(rows)} rows in, {len(res.rows)} out -> {out}  {json.dumps(brief, ensure_ascii=False)}",
               err=True)


@app.command()
def recipe(
    path: Annotated[Path, typer.Argument(help="recipe YAML")],
    out: Annotated[Path | None, typer.Option(help="output folder (default: the recipe's 'output')")] = None,
    store: Annotated[Path | None, typer.Option("--store", envvar="REASONEVAL_STORE",
                                               help="run store (default: the recipe's 'store')")] = None,
    concurrency: ConcOpt = 16,
    progress: bool = False,
) -> None:
    """Run every step of a recipe; writes the files and OUT/manifest.json (what came from where)."""
    from ..builder.recipe import run_recipe

    try:
        manifest = run_recipe(path, out, store, concurrency, progress)
    except (BuildError, FileNotFoundError, ValueError) as e:
        raise _fail(str(e)) from None
    for s in manifest["steps"]:
        typer.echo(f"{s['index']:2d} {s['step']:<11} {s['rows_in']:>6} -> {s['rows_out']:<6} "
                   f"runs: {', '.join(r['run_id'] for r in s['runs']) or '-'}", err=True)
    for name, sha in manifest["outputs"].items():
        typer.echo(f"wrote {name} (sha256 {sha[:12]})", err=True)


@app.command()
def difficulty(
    inp: Annotated[Path, typer.Argument(help="rows in the benchmark's format")],
    out: Annotated[Path, typer.Argument()],
    target: Annotated[str, typer.Option(help="benchmark[:subset] evaluating the rows (reasoneval list)")] = "",
    model: Annotated[list[str] | None, typer.Option("--model", help="model run on the rows (repeatable)")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="stored run read (repeatable)")] = None,
    max_pass: float = 0.5, min_pass: float = 0.0,
    store: StoreOpt = DEFAULT_STORE, concurrency: ConcOpt = 16, report: ReportOpt = None, param: ParamOpt = None,
) -> None:
    """Keep rows whose mean pass rate over the chosen models is between --min-pass and --max-pass."""
    run_step("difficulty", inp, out, {"target": target, "models": model or [], "runs": run or [],
                                      "max_pass": max_pass, "min_pass": min_pass, **extra_params(param)},
             store, concurrency, report)


@app.command()
def reasoning(
    inp: Annotated[Path, typer.Argument()],
    out: Annotated[Path, typer.Argument()],
    min_tokens: int = 2000,
    target: str = "",
    model: Annotated[str | None, typer.Option(help="reasoning model run on the rows")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="stored run read (repeatable)")] = None,
    store: StoreOpt = DEFAULT_STORE, concurrency: ConcOpt = 16, report: ReportOpt = None, param: ParamOpt = None,
) -> None:
    """Keep rows whose reasoning model used at least --min-tokens reasoning tokens (else completion tokens)."""
    run_step("reasoning", inp, out, {"min_tokens": min_tokens, "target": target, "model": model,
                                     "runs": run or [], **extra_params(param)}, store, concurrency, report)


@app.command()
def cap(
    inp: Annotated[Path, typer.Argument()],
    out: Annotated[Path, typer.Argument()],
    max: Annotated[int, typer.Option("--max", help="rows per group")] = 50,
    field: str = "subject",
    seed: int = 0,
    report: ReportOpt = None,
) -> None:
    """At most --max rows per subject (or --field), chosen with --seed."""
    run_step("cap", inp, out, {"max": max, "field": field, "seed": seed}, DEFAULT_STORE, 1, report)


@app.command()
def dedup(
    inp: Annotated[Path, typer.Argument()],
    out: Annotated[Path, typer.Argument()],
    threshold: Annotated[float, typer.Option(help="cosine at or above which two rows are near-duplicates")] = 0.9,
    against: Annotated[list[str] | None, typer.Option(help="JSONL file or benchmark[:subset] (repeatable)")] = None,
    field: str = "question",
    within: Annotated[bool, typer.Option(help="also within the set itself")] = True,
    report: ReportOpt = None,
) -> None:
    """Drop near-duplicates within the set and against other sets (packaged MiniLM embeddings)."""
    run_step("dedup", inp, out, {"threshold": threshold, "against": against or [], "field": field,
                                 "within": within}, DEFAULT_STORE, 1, report)
