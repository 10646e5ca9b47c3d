"""``run`` (a benchmark against a model), ``score`` (a stored run again), ``rescore`` and ``import`` (completions
made elsewhere). ``run``'s options come in typed groups (:mod:`.run_options`).

Everything else is imported at the top. What runs the engine (``runner/local``, ``runner/ray_exec``,
``runner/rescore``, ``runner/importer``: some 70 modules, ~100 ms, a sixth of the CLI's start-up) and what one
command alone reads (``report/collect``, ``runner/harness_logs``: ~25 ms) are imported by the command that needs
them, so ``--help`` and the other commands do not pay for them."""

from __future__ import annotations

import asyncio
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from ..core import registry
from ..core.safetext import json_shown, shown, strip_controls
from ..hub import set_offline
from ..hub.pinned import pinned_to
from ..models.base import ModelError
from ..models.registry import load_model
from ..report.labels import clean_name, display_name
from ..runner.errors import error_kind
from ..runner.launch import SpecError, plan_run
from ..runner.signals import Termination
from ..store.sqlite import RunStore
from .common import (
    DEFAULT_STORE,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SOME_FAILED,
    EXIT_STATUS_HELP,
    JsonOpt,
    OptionsOpt,
    StoreOpt,
    app,
    bench_with_options,
    benchmark_names,
    existing_store,
    fail,
    print_report,
)
from .groups import grouped
from .run_options import Generation, HTTPLimits, Output, RayOptions, Redo, Selection


def _say(line: str) -> None:
    typer.echo(line, err=True)


@app.command(context_settings={"allow_extra_args": True}, epilog=EXIT_STATUS_HELP)
@grouped
def run(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help=f"benchmark[:subset[,subset]]: {benchmark_names()} (`reasoneval list` shows the subsets)")],
    model: Annotated[str, typer.Option(help="llamacpp/default | openai/<m> | openai-compat/<m>@URL[,URL] | anthropic/<m> | hf/<path> | vllm/<path>")] = "llamacpp/default",
    judge: Annotated[str | None, typer.Option(help="judge model spec (for the benchmarks that use one)")] = None,
    fingerprint: Annotated[str, typer.Option(help="how local weights (hf/, llamacpp/<file>, vllm/) are identified: sampled (sizes + 64 blocks of each large file, memoised) | full (every byte; another run id)")] = "sampled",
    items: Selection = Selection(),
    gen: Generation = Generation(),
    http: HTTPLimits = HTTPLimits(),
    ray: RayOptions = RayOptions(),
    redo: Redo = Redo(),
    out: Output = Output(),
) -> None:
    """Run a benchmark against a model, store every completion, score it and print the table."""
    _stray_words(target, ctx.args)
    display = _display_name("--name", out.name) if out.name is not None else None
    redo.check()
    ray.check()
    http.check()
    if items.offline:
        set_offline(True)
    try:
        bench, spec = plan_run(target, model, judge=judge, fingerprint=fingerprint, say=_say,
                               **items.plan_args(), **gen.plan_args())
        run_id = spec.run_id()  # local weights: their content fingerprint (models/fingerprint.py)
    except SpecError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{model}: cannot read the model files: {e}")
    st = RunStore(out.store)
    term = Termination()  # SIGTERM / SIGHUP stop the run like Ctrl-C
    try:
        # this process alone runs run_id on this store (else one `error:` line); released when the run ends
        with term, st.run_lock(run_id):
            result = _execute(bench, spec, st, term, f"run {run_id}: {target} ({spec.mode}) on {model}  "
                              f"[store {out.store}]", http, ray, redo, out.progress)
    except (ModelError, FileNotFoundError, ValueError) as e:
        fail(str(e))
    except (KeyboardInterrupt, asyncio.CancelledError) as e:
        _interrupted(e, term, st, run_id, display, out.store)
    _finished(st, result, display, out)


def _interrupted(e: BaseException, term: Termination, st: RunStore, run_id: str, display: str | None,
                 store: Path) -> NoReturn:
    """Ctrl-C, SIGTERM or SIGHUP: the run is stored (with its name); how to resume it, exit 128 + the signal."""
    if display is not None:  # an interrupted run keeps its name too
        st.set_display_name(run_id, display)
    if isinstance(e, asyncio.CancelledError) and term.signum is None:
        raise e
    how = f" by {term.name}" if term.signum is not None else ""
    typer.echo(f"\ninterrupted{how}: run {run_id} is stored in {store}; re-run the same command to resume it "
               "(nothing finished is asked again)", err=True)
    raise typer.Exit(term.exit_code) from None


def _finished(st: RunStore, result: Any, display: str | None, out: Output) -> None:
    """A finished run: its name, its counts and requests, its report, why calls failed and the exit status."""
    if display is not None:
        st.set_display_name(result.run_id, display)
    typer.echo(f"run {result.run_id}{' (resumed)' if result.resumed else ''}: {result.units} items, "
               f"{result.generated} generated, {result.cached} cached, {result.reused} reused, "
               f"{result.errors} errors  [store {out.store}]", err=True)
    if result.extra.get("requests"):
        typer.echo(_requests_line(result.extra["requests"]), err=True)
    print_report(st, [result.run_id], out.json_out, prompts=False)
    code = _explain_errors(st, result)
    if code:
        raise typer.Exit(code)


def _execute(bench: Any, spec: Any, st: RunStore, term: Termination, announce: str, http: HTTPLimits,
             ray: RayOptions, redo: Redo, progress: bool) -> Any:
    """Run ``spec`` on this machine or on Ray workers; the engine's ``RunResult``."""
    if ray.executor == "ray":
        from ..runner.ray_exec import json_object, run_ray  # (see the module's docstring; Ray: only there)

        typer.echo(announce, err=True)
        return run_ray(bench, spec, st, workers=ray.workers, address=ray.ray_address,
                       retry_errors=redo.retry_errors, progress=progress,
                       actor_options=json_object("--ray-actor-options", ray.ray_actor_options),
                       runtime_env=json_object("--ray-runtime-env", ray.ray_runtime_env),
                       concurrency=ray.ray_worker_concurrency, start_timeout_s=ray.ray_start_timeout,
                       refresh=redo.refresh, retry_unanswered=redo.retry_unanswered)
    from ..runner.event_loop import run_owned  # uvloop where installed: the CLI owns this process's loop
    from ..runner.local import run_local  # (see the module's docstring)

    return run_owned(term.guard(run_local(bench, spec, st, http.concurrency, redo.retry_errors, progress,
                                            announce, http.options(), say=_say, refresh=redo.refresh,
                                            retry_unanswered=redo.retry_unanswered, quiet_gc=True)),
                     http.event_loop)


def _stray_words(target: str, words: list[str]) -> None:
    """Words after TARGET are a mistake: one ``error:`` line, naming what was meant when the words are subsets of
    the benchmark (``bench sub``: ``bench:sub``) or one of its modes (``--mode``). The benchmark's own catalogue
    says which (no benchmark is named here)."""
    if not words:
        return
    name, subset = registry.parse_target(target)
    got = " ".join(words)
    try:
        bench = registry.get(name)
        subsets, modes = list(bench.subsets()), list(bench.modes())
    except Exception:  # noqa: BLE001 - an unknown or broken benchmark: the plain message below
        subsets, modes = [], []
    if subsets and all(w in subsets for w in words):
        meant = f"{name}:{','.join([*(subset.split(',') if subset else []), *words])}"
        fail(f"unexpected {got!r} after {target!r}: did you mean {meant}? (a subset follows its benchmark after "
             "a colon)")
    if len(words) == 1 and words[0] in modes:
        fail(f"unexpected {got!r} after {target!r}: did you mean --mode {words[0]}?")
    fail(f"unexpected argument {got!r}: `reasoneval run` takes one BENCHMARK[:SUBSET[,SUBSET]] and options")


def _display_name(flag: str, raw: str) -> str:
    try:
        return clean_name(raw)
    except ValueError as e:
        fail(f"{flag}: {e}")


@app.command("rename")
def rename(
    run_ref: Annotated[str, typer.Argument(metavar="RUN", help="run id (or unique prefix)")],
    name: Annotated[str | None, typer.Argument(help="the new display name")] = None,
    reset: Annotated[bool, typer.Option("--reset", help="forget the stored name: derive it from the model again")] = False,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Set the display name a run carries in every table and plot (the run id stays the same)."""
    from ..report.collect import resolve_run  # (see the module's docstring)

    if (name is None) == (not reset):
        fail("give a NAME, or --reset to derive the name from the model again (not both)")
    new = None if reset else _display_name("NAME", name or "")
    st = existing_store(store)
    try:
        run = resolve_run(st, run_ref)
    except KeyError as e:
        fail(str(e.args[0]))
    old = display_name(run)
    st.set_display_name(run["run_id"], new)
    now = display_name(st.get_run(run["run_id"]) or run)
    st.close()
    typer.echo(f"run {run['run_id']}: {old!r} -> {now!r}")


def _requests_line(r: dict[str, Any]) -> str:
    """The HTTP requests a run sent, per model call (hedges, abandonments, retries, the extra-request cap)."""
    per = r.get("per_call")
    return (f"requests: {r['sent']} sent for {r['calls']} model calls ({per if per is not None else '-'} per call, "
            f"at most {r['most_per_call']}); {r['hedges']} hedge copies, {r['abandoned']} abandoned and sent again, "
            f"{r['retries']} retries in all; extra requests: {r['extra']} sent, {r['extra_charged']} charged to the "
            f"cap of {r['extra_cap']} (--max-extra-requests {r['max_extra_share']:g} of the items; one that answered "
            "sooner than the copy it replaced is not charged)"
            + (f", {r['extra_denied']} attempts held at the cap" if r.get("extra_denied") else ""))


def _explain_errors(st: Any, result: Any) -> int:
    """Print why calls failed (counted by kind); the exit status (:data:`~.common.EXIT_SOME_FAILED` when the run
    finished with some items failed, :data:`~.common.EXIT_FAILED` when every call failed or the engine died)."""
    if not result.errors and not result.extra.get("engine_deaths"):
        return EXIT_OK
    # stored errors are stripped of control codes when they are made; a store written before may hold them
    kinds = Counter(strip_controls(error_kind(e)) for e in st.errors(result.run_id))
    for kind, n in kinds.most_common():
        typer.echo(f"  {n} x {kind}", err=True)
    deaths = result.extra.get("engine_deaths") or []
    if deaths:
        typer.echo(f"error: {deaths[0]}; {result.errors} items recorded as errors. Re-run the same command "
                   "with --retry-errors to ask them again.", err=True)
        return EXIT_FAILED
    if result.errors and result.errors >= result.units:
        typer.echo(f"error: every call failed ({result.errors} of {result.units}); nothing was scored", err=True)
        return EXIT_FAILED
    typer.echo(f"{result.errors} of {result.units} items failed and are excluded from accuracy; "
               f"--retry-errors re-asks only those (exit status {EXIT_SOME_FAILED})", err=True)
    return EXIT_SOME_FAILED


@app.command()
def score(
    run_ref: Annotated[str, typer.Argument(help="run id (or unique prefix)")],
    store: StoreOpt = DEFAULT_STORE,
    json_out: JsonOpt = False,
) -> None:
    """Re-score a run's stored completions (never calls a model) and print its report.

    A run of a Hub release is re-scored against the commit and file hashes it recorded, from the local
    Hugging Face cache only (never what the Hub serves now); when that data is gone, one line says so."""
    from ..report.collect import resolve_run  # (see the module's docstring)
    from ..runner.engine import SCORER
    from ..runner.score_stored import rescore_run

    st = existing_store(store)
    try:
        run = resolve_run(st, run_ref)
    except KeyError as e:
        fail(str(e.args[0]))
    with pinned_to(run):
        try:
            n = rescore_run(st, run)
        except (ValueError, FileNotFoundError) as e:  # DataError / HubError: the run's data cannot be read
            fail(f"cannot re-score run {run['run_id']}: {e}")
        typer.echo(f"re-scored {n} completions of run {run['run_id']}", err=True)
        print_report(st, [run["run_id"]], json_out, SCORER)


@app.command()
def rescore(
    benchmark: Annotated[str, typer.Argument(help=benchmark_names())],
    paths: Annotated[list[str], typer.Argument(help="files or folders of completions made elsewhere")],
    jsonl: Annotated[bool, typer.Option("--jsonl", help="one verdict object per item on stdout")] = False,
    scoring: Annotated[str | None, typer.Option(help="official | corrected (same as -O scoring=...)")] = None,
    mode: Annotated[str | None, typer.Option(help="protocol, where the benchmark has several (`reasoneval list`)")] = None,
    diff: Annotated[bool, typer.Option("--diff", help="list items where official and corrected disagree")] = False,
    judge: Annotated[str | None, typer.Option(help="judge model spec")] = None,
    option: OptionsOpt = None,
) -> None:
    """Score completions made elsewhere (each row: a release item plus a `response` field)."""
    pairs = [*(option or []), *([f"scoring={scoring}"] if scoring else [])]
    bench = bench_with_options(benchmark, pairs, None)
    for p in paths:
        if not Path(p).exists():
            fail(f"{p}: no such file or folder")
    options: dict[str, Any] = {**bench.options.to_json(), "diff": diff, "judge": None}
    if mode:
        options["mode"] = mode
    try:
        if judge:
            options["judge"] = load_model(judge)
        from .rescore_output import rescore_outside  # the scoring session (see the module's docstring)

        code = rescore_outside(bench, paths, jsonl, options)
    except ModelError as e:
        fail(str(e))
    except NotImplementedError as e:
        fail(str(e))
    except BrokenPipeError:  # `... | head`: the reader is gone, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except (ValueError, OSError) as e:
        fail(str(e))
    raise typer.Exit(code or 0)


def _import_limits(member_mb: int | None, log_mb: int | None) -> tuple[int, int] | None:
    """``--max-member-mb`` / ``--max-log-mb`` as bytes (None: the defaults of ``runner/harness_logs.py``)."""
    if member_mb is None and log_mb is None:
        return None
    from ..runner import harness_logs  # (see the module's docstring)

    return ((member_mb << 20) if member_mb else harness_logs.MAX_MEMBER,
            (log_mb << 20) if log_mb else harness_logs.MAX_TOTAL)


@app.command("import")
def import_cmd(
    benchmark: Annotated[str, typer.Argument(help="a benchmark (reasoneval list)")],
    paths: Annotated[list[str], typer.Argument(help="files or folders of completions made elsewhere")],
    store: StoreOpt = DEFAULT_STORE,
    scoring: Annotated[str | None, typer.Option(help="the benchmark's scoring (same as -O scoring=...)")] = None,
    name: Annotated[str | None, typer.Option(help="display name of the imported run(s), as `run --name` (default: the model the files name); not part of the run id: importing the same files again under another name only renames the run")] = None,
    as_: Annotated[str | None, typer.Option("--as", help="lm-eval / inspect-ai logs: the target BENCHMARK:SUBSET[:MODE] (default: from the task name); a log whose samples' question/answer fields disagree with the items they map to is refused")] = None,
    force: Annotated[bool, typer.Option("--force", help="import lm-eval / inspect-ai samples even where their question/answer fields disagree with the item they are mapped to")] = False,
    fmt: Annotated[str, typer.Option("--format", help="auto | native (the benchmark's own files) | logs (lm-eval samples, inspect-ai logs)")] = "auto",
    json_out: JsonOpt = False,
    max_member_mb: Annotated[int | None, typer.Option(min=1, help="inspect-ai .eval logs: most MiB one member may have once decompressed (a zip bomb stops there; default 256)")] = None,
    max_log_mb: Annotated[int | None, typer.Option(min=1, help="inspect-ai .eval logs: most MiB all members of one log may have once decompressed (default 2048)")] = None,
    option: OptionsOpt = None,
) -> None:
    """Store completions made elsewhere as runs (one per model and mode), scored as `rescore` scores them:
    the benchmark's own output files (`rescore`'s formats), lm-evaluation-harness `--log_samples` files and
    inspect-ai eval logs. A log's prompts are kept; a run whose prompts are not the ones the benchmark builds is
    labelled with its origin (`imported: lm-eval task T`) in `runs` and the reports."""
    from ..runner.harness_logs import harness_rows, is_harness_log  # (see the module's docstring)
    from ..runner.importer import import_rows

    display = _display_name("--name", name) if name is not None else None
    pairs = [*(option or []), *([f"scoring={scoring}"] if scoring else [])]
    bench = bench_with_options(benchmark, pairs, None)
    for p in paths:
        if not Path(p).exists():
            fail(f"{p}: no such file or folder")
    options: dict[str, Any] = {**bench.options.to_json(), "diff": False, "judge": None}
    if fmt not in ("auto", "native", "logs"):
        fail(f"--format {fmt!r}: auto, native or logs")
    logs = fmt == "logs" or (fmt == "auto" and (as_ is not None or any(
        is_harness_log(q) for p in map(Path, paths) for q in ([*p.rglob("*")] if p.is_dir() else [p]))))
    st = RunStore(store)
    try:
        if logs:
            got = import_rows(bench, st, harness_rows(paths, bench, as_, force, _import_limits(max_member_mb, max_log_mb)), options, "harness logs", display)
        else:
            got = import_rows(bench, st, bench.outside_rows(paths, options), options,
                              f"{benchmark} outside files", display)
    except (NotImplementedError, ValueError, OSError) as e:
        fail(str(e))
    finally:
        st.close()
    for bad in got.errors:  # file, member and model names are outside text: their control codes are shown
        typer.echo(f"error: {shown(bad, keep_newlines=True)}", err=True)
    if not got.runs:
        fail(f"no rows found in {', '.join(paths)}", 1 if got.errors else 2)
    if json_out:
        typer.echo(json_shown([{"run": r.run_id, "model": r.model, "name": r.name, "mode": r.mode,
                                "protocol": r.protocol or None, "items": r.items, "completions": r.completions,
                                "existed": r.existed, "files": r.files}
                               for r in got.runs], indent=1))
    else:
        for r in got.runs:
            what = "already stored" + (f", named {r.name!r}" if r.name else "") if r.existed else f"{r.items} items"
            how = f"{r.mode} ({r.protocol})" if r.protocol else r.mode
            typer.echo(f"{r.run_id}  {shown(r.name or r.model)}  {shown(how)}  {shown(what)}")
    models = sorted({r.model for r in got.runs})
    if display is not None and len(models) > 1:
        typer.echo(shown(f"note: --name {display!r} names the runs of {len(models)} models ({', '.join(models[:5])}"
                         f"{', ...' if len(models) > 5 else ''}); `reasoneval rename RUN NAME` names one"), err=True)
    new = sum(1 for r in got.runs if not r.existed)
    typer.echo(f"{shown(benchmark)} import: {new} new run(s), {len(got.runs) - new} already stored, "
               f"{len(got.errors)} bad row(s) -> {shown(store)}", err=True)
    raise typer.Exit(1 if got.errors else 0)


