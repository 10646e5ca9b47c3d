"""``run`` (a benchmark against a model), ``score`` (a stored run again), ``rescore`` and ``import`` (completions
made elsewhere)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    DEFAULT_STORE,
    OptionsOpt,
    StoreOpt,
    app,
    bench_with_options,
    benchmark_names,
    existing_store,
    fail,
    print_report,
)


def _say(line: str) -> None:
    typer.echo(line, err=True)


@app.command()
def run(
    target: Annotated[str, typer.Argument(help=f"benchmark[:subset]: {benchmark_names()} (`reasoneval list` shows the subsets)")],
    model: Annotated[str, typer.Option(help="llamacpp/default | openai/<m> | openai-compat/<m>@URL[,URL] | anthropic/<m> | hf/<path> | vllm/<path>")] = "llamacpp/default",
    mode: Annotated[str | None, typer.Option(help="protocol (see `reasoneval list`)")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="N items of EACH subset (default: all): a seeded sample keeping the labels' and categories' shares (--limit-mode first: the first N)")] = None,
    limit_mode: Annotated[str, typer.Option(help="how --limit picks items: sample (seeded, stratified) | first (the first N in the release's order)")] = "sample",
    limit_seed: Annotated[int, typer.Option(help="seed of the --limit sample (part of the run id)")] = 0,
    concurrency: Annotated[int, typer.Option(min=1, help="requests in flight")] = 32,
    samples: Annotated[int, typer.Option(min=1, help="samples per item")] = 1,
    seed: Annotated[int | None, typer.Option(help="seed sent to the model (and of per-sample seeds); default: none sent")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="default: the benchmark's")] = None,
    temperature: Annotated[float | None, typer.Option(help="default: greedy / provider default")] = None,
    top_p: Annotated[float | None, typer.Option(help="nucleus sampling top-p (default: the benchmark's)")] = None,
    reasoning_effort: Annotated[str | None, typer.Option(help="minimal|low|medium|high: sent as reasoning_effort (Anthropic: thinking budget)")] = None,
    system: Annotated[str | None, typer.Option(help="system message before every prompt (@FILE reads a file)")] = None,
    extra_body: Annotated[str | None, typer.Option(help="JSON object merged into every request body (provider fields)")] = None,
    settings: Annotated[str | None, typer.Option(help="named generation settings, e.g. paper (`reasoneval list` shows them)")] = None,
    stream: Annotated[bool, typer.Option(help="stream HTTP responses to measure time to first answer token (not part of the run id)")] = True,
    judge: Annotated[str | None, typer.Option(help="judge model spec (for the benchmarks that use one)")] = None,
    retry_errors: Annotated[bool, typer.Option("--retry-errors", help="re-ask only failed calls")] = False,
    retry_unanswered: Annotated[bool, typer.Option("--retry-unanswered", help="also re-ask the items whose stored answer is empty or unextractable (their cached responses are not read)")] = False,
    refresh: Annotated[bool, typer.Option("--refresh", help="re-ask every item: the cache is not read, the new answers replace the stored and cached ones")] = False,
    fingerprint: Annotated[str, typer.Option(help="how local weights (hf/, llamacpp/<file>, vllm/) are identified: sampled (sizes + 64 blocks of each large file, memoised) | full (every byte; another run id)")] = "sampled",
    executor: Annotated[str, typer.Option(help="local | ray")] = "local",
    ray_address: Annotated[str | None, typer.Option(help="ray://host:port (default: start a local cluster)")] = None,
    workers: Annotated[int, typer.Option(help="Ray workers")] = 2,
    ray_actor_options: Annotated[str | None, typer.Option(help='JSON merged into each Ray worker\'s options, e.g. {"num_gpus": 1}')] = None,
    ray_runtime_env: Annotated[str | None, typer.Option(help="JSON runtime_env for ray.init (pip, py_modules, env_vars)")] = None,
    ray_worker_concurrency: Annotated[int | None, typer.Option(min=1, help="requests in flight per Ray worker (default: the backend's limit)")] = None,
    ray_start_timeout: Annotated[float | None, typer.Option(min=1, help="seconds to wait for the Ray workers to load the model (default 1800)")] = None,
    data: Annotated[str | None, typer.Option(help="dataset path: a folder or file replacing the benchmark's data")] = None,
    option: OptionsOpt = None,
    offline: Annotated[bool, typer.Option("--offline", help="Hub releases from the local cache only, no network (as HF_HUB_OFFLINE=1)")] = False,
    timeout_connect: Annotated[float, typer.Option(min=0.1, help="HTTP connect timeout, s (not part of the run id)")] = 10.0,
    timeout_read: Annotated[float | None, typer.Option(min=0.1, help="HTTP read timeout, s (default: the total)")] = None,
    timeout_total: Annotated[float, typer.Option(min=0.1, help="HTTP timeout of one attempt, s")] = 600.0,
    hedge_after: Annotated[float | None, typer.Option(min=0, help="a request with no byte of its answer after S s gives its slot back and one copy is sent, the first answer to start goes on (default adaptive: 4 x the p99 time to first byte, 1-300 s; 0 off)")] = None,
    abandon_after: Annotated[float | None, typer.Option(min=0, help="an attempt silent for S s (no byte from any copy) is abandoned and retried; bytes arriving are never abandoned (default adaptive: 8 x the p99 time to first byte, at least 2 s, at most --timeout-total; 0 off)")] = None,
    max_extra_requests: Annotated[float, typer.Option(min=0, help="extra requests (hedge copies, abandoned attempts sent again) per run, as a share of its items (rounded up, at least 1; 0: never hedge nor abandon)")] = 0.05,
    max_response_mb: Annotated[float | None, typer.Option(min=0.001, help="largest HTTP response read, MiB received (default 64; not part of the run id)")] = None,
    max_decoded_mb: Annotated[float | None, typer.Option(min=0.001, help="largest HTTP response once decompressed, MiB (default 64)")] = None,
    max_response_chars: Annotated[int | None, typer.Option(min=1, help="most characters of answer + reasoning read from one response (default 8,000,000)")] = None,
    store: StoreOpt = DEFAULT_STORE,
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    progress: bool = True,
    name: Annotated[str | None, typer.Option("--name", help="display name in tables and plots (default: the model name without provider and endpoint); stored in the run record, not part of the run id; `reasoneval rename` changes it")] = None,
) -> None:
    """Run a benchmark against a model, store every completion, score it and print the table."""
    from ..models.base import ModelError
    from ..store.sqlite import RunStore

    if offline:
        from ..hub import set_offline

        set_offline(True)
    display = _display_name("--name", name) if name is not None else None
    from ..runner.launch import SpecError, plan_run

    if refresh and retry_unanswered:
        fail("--refresh re-asks every item already; drop --retry-unanswered")
    try:
        bench, spec = plan_run(
            target, model, mode=mode, limit=limit, limit_mode=limit_mode, limit_seed=limit_seed, samples=samples,
            seed=seed, max_tokens=max_tokens, temperature=temperature, top_p=top_p,
            reasoning_effort=reasoning_effort, system=_read_system(system), extra_body=extra_body,
            settings=settings, judge=judge, data=data, option_pairs=option, say=_say, fingerprint=fingerprint)
    except SpecError as e:
        fail(str(e))
    mode = spec.mode
    if executor not in ("local", "ray"):
        fail(f"unknown executor {executor!r}: local or ray")
    try:
        run_id = spec.run_id()  # local weights: their content fingerprint (models/fingerprint.py)
    except OSError as e:
        fail(f"{model}: cannot read the model files: {e}")
    announce = f"run {run_id}: {target} ({mode}) on {model}  [store {store}]"
    from ..runner.launch import http_options

    http = http_options(timeout_total=timeout_total, timeout_connect=timeout_connect, timeout_read=timeout_read,
                        hedge_after=hedge_after, abandon_after=abandon_after, stream=stream,
                        max_extra_requests=max_extra_requests, max_response_mb=max_response_mb,
                        max_decoded_mb=max_decoded_mb, max_response_chars=max_response_chars)
    from ..runner.signals import Termination

    st = RunStore(store)
    term = Termination()  # SIGTERM / SIGHUP stop the run like Ctrl-C
    try:
        # this process alone runs run_id on this store (else one `error:` line); released when the run ends
        with term, st.run_lock(run_id):
            if executor == "ray":
                from ..runner.ray_exec import json_object, run_ray

                typer.echo(announce, err=True)
                result = run_ray(bench, spec, st, workers=workers, address=ray_address,
                                 retry_errors=retry_errors, progress=progress,
                                 actor_options=json_object("--ray-actor-options", ray_actor_options),
                                 runtime_env=json_object("--ray-runtime-env", ray_runtime_env),
                                 concurrency=ray_worker_concurrency, start_timeout_s=ray_start_timeout,
                                 refresh=refresh, retry_unanswered=retry_unanswered)
            else:
                from ..runner.local import run_local

                result = asyncio.run(term.guard(run_local(bench, spec, st, concurrency, retry_errors, progress,
                                                          announce, http, say=_say, refresh=refresh,
                                                          retry_unanswered=retry_unanswered, quiet_gc=True)))
    except ModelError as e:
        fail(str(e))
    except (FileNotFoundError, ValueError) as e:
        fail(str(e))
    except (KeyboardInterrupt, asyncio.CancelledError) as e:
        if display is not None:  # an interrupted run keeps its name too
            st.set_display_name(run_id, display)
        if isinstance(e, asyncio.CancelledError) and term.signum is None:
            raise
        how = f" by {term.name}" if term.signum is not None else ""
        typer.echo(f"\ninterrupted{how}: run {run_id} is stored in {store}; re-run the same command to resume it "
                   "(nothing finished is asked again)", err=True)
        raise typer.Exit(term.exit_code) from None
    if display is not None:
        st.set_display_name(result.run_id, display)
    typer.echo(f"run {result.run_id}{' (resumed)' if result.resumed else ''}: {result.units} items, "
               f"{result.generated} generated, {result.cached} cached, {result.reused} reused, "
               f"{result.errors} errors  [store {store}]", err=True)
    if result.extra.get("requests"):
        typer.echo(_requests_line(result.extra["requests"]), err=True)
    print_report(st, [result.run_id], json_out, prompts=False)
    code = _explain_errors(st, result)
    if code:
        raise typer.Exit(code)


def _display_name(flag: str, raw: str) -> str:
    from ..report.labels import clean_name

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
    from ..report.collect import resolve_run
    from ..report.labels import display_name

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


def _read_system(system: str | None) -> str | None:
    if system and system.startswith("@"):
        try:
            return Path(system[1:]).read_text(encoding="utf-8")
        except OSError as e:
            fail(f"--system {system}: {e.strerror or e}")
    return system or None


def _explain_errors(st: Any, result: Any) -> int:
    """Print why calls failed (counted by kind); the exit code: 1 when every call failed or the engine died."""
    if not result.errors and not result.extra.get("engine_deaths"):
        return 0
    from collections import Counter

    from ..core.safetext import strip_controls
    from ..runner.errors import error_kind

    # stored errors are stripped of control codes when they are made; a store written before may hold them
    kinds = Counter(strip_controls(error_kind(e)) for e in st.errors(result.run_id))
    for kind, n in kinds.most_common():
        typer.echo(f"  {n} x {kind}", err=True)
    deaths = result.extra.get("engine_deaths") or []
    if deaths:
        typer.echo(f"error: {deaths[0]}; {result.errors} items recorded as errors. Re-run the same command "
                   "with --retry-errors to ask them again.", err=True)
        return 1
    if result.errors and result.errors >= result.units:
        typer.echo(f"error: every call failed ({result.errors} of {result.units}); nothing was scored", err=True)
        return 1
    typer.echo(f"{result.errors} of {result.units} items failed and are excluded from accuracy; "
               "--retry-errors re-asks only those", err=True)
    return 0


@app.command()
def score(
    run_ref: Annotated[str, typer.Argument(help="run id (or unique prefix)")],
    store: StoreOpt = DEFAULT_STORE,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Re-score a run's stored completions (never calls a model) and print its report.

    A run of a Hub release is re-scored against the commit and file hashes it recorded, from the local
    Hugging Face cache only (never what the Hub serves now); when that data is gone, one line says so."""
    from ..hub.pinned import pinned_to
    from ..report.collect import resolve_run
    from ..runner.engine import SCORER
    from ..runner.rescore import rescore_run

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
    from ..models.base import ModelError

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
            from ..models.registry import load_model

            options["judge"] = load_model(judge)
        from .rescore import rescore_outside

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
    from ..runner import harness_logs

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
    json_out: Annotated[bool, typer.Option("--json", help="print the imported runs as JSON")] = False,
    max_member_mb: Annotated[int | None, typer.Option(min=1, help="inspect-ai .eval logs: most MiB one member may have once decompressed (a zip bomb stops there; default 256)")] = None,
    max_log_mb: Annotated[int | None, typer.Option(min=1, help="inspect-ai .eval logs: most MiB all members of one log may have once decompressed (default 2048)")] = None,
    option: OptionsOpt = None,
) -> None:
    """Store completions made elsewhere as runs (one per model and mode), scored as `rescore` scores them:
    the benchmark's own output files (`rescore`'s formats), lm-evaluation-harness `--log_samples` files and
    inspect-ai eval logs. A log's prompts are kept; a run whose prompts are not the ones the benchmark builds is
    labelled with its origin (`imported: lm-eval task T`) in `runs` and the reports."""
    from ..runner.harness_logs import harness_rows, is_harness_log
    from ..runner.importer import import_rows

    display = _display_name("--name", name) if name is not None else None
    pairs = [*(option or []), *([f"scoring={scoring}"] if scoring else [])]
    bench = bench_with_options(benchmark, pairs, None)
    for p in paths:
        if not Path(p).exists():
            fail(f"{p}: no such file or folder")
    options: dict[str, Any] = {**bench.options.to_json(), "diff": False, "judge": None}
    from ..store.sqlite import RunStore

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
    from ..core.safetext import json_shown, shown

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


