"""``run`` (a benchmark against a model), ``score`` (a stored run again), ``rescore`` and ``import`` (completions
made elsewhere)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import registry
from ..core.types import GenParams
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
    hedge_after: Annotated[float | None, typer.Option(min=0, help="a request unanswered after S s gives its slot back and is re-sent, first answer wins (default adaptive: 4 x the p99 latency, 1-300 s; 0 off)")] = None,
    abandon_after: Annotated[float | None, typer.Option(min=0, help="an attempt unanswered S s after its last copy was sent is abandoned and retried (default adaptive: 8 x the p99 latency, at least 2 s, at most --timeout-total; 0 off)")] = None,
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
    from ..runner.spec import RunSpec
    from ..store.sqlite import RunStore

    if offline:
        from ..hub import set_offline

        set_offline(True)
    display = _display_name("--name", name) if name is not None else None
    _check_finite("--temperature", temperature, low=0.0)
    _check_finite("--top-p", top_p, low=0.0, high=1.0)
    name, subset = registry.parse_target(target)
    bench = bench_with_options(name, option, data)
    _check_data_path(bench.options.data)
    mode = mode or bench.default_mode
    if mode not in bench.modes():
        fail(f"unknown mode {mode!r} for {name}; known: {', '.join(bench.modes())}")
    for sub in (subset or "").split(","):
        if sub and sub not in bench.subsets():
            fail(f"unknown subset {sub!r} of {name}; known: {', '.join(bench.subsets())}")
    params, settings_record = _gen_params(bench, model, settings, {
        "max_tokens": max_tokens, "temperature": temperature, "top_p": top_p, "seed": seed,
        "reasoning_effort": reasoning_effort, "system": _read_system(system),
        "extra_body": _extra_body(extra_body)})
    try:
        data_version = bench.data_version()
    except (FileNotFoundError, ValueError) as e:
        fail(_data_message(bench, e))
    from ..runner.sample import LIMIT_MODES

    if limit_mode not in LIMIT_MODES:
        fail(f"unknown --limit-mode {limit_mode!r}: {' or '.join(LIMIT_MODES)}")
    spec = RunSpec(name, subset, mode, model, params, samples, seed or 0, limit, judge, bench.options,
                   data_version=data_version, settings=settings_record, limit_mode=limit_mode,
                   limit_seed=limit_seed)
    _check_selects_items(bench, spec)
    if executor not in ("local", "ray"):
        fail(f"unknown executor {executor!r}: local or ray")
    run_id = spec.run_id()
    announce = f"run {run_id}: {target} ({mode}) on {model}  [store {store}]"
    from ..models.limits import ResponseLimits
    from ..models.openai_compat import HTTPOptions

    http = HTTPOptions(timeout_s=timeout_total, connect_timeout_s=timeout_connect, read_timeout_s=timeout_read,
                       hedge_after_s=hedge_after, abandon_after_s=abandon_after, stream=stream,
                       limits=ResponseLimits.of(max_response_mb, max_decoded_mb, max_response_chars))
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
                                 concurrency=ray_worker_concurrency, start_timeout_s=ray_start_timeout)
            else:
                from ..runner.local import run_local

                result = asyncio.run(term.guard(run_local(bench, spec, st, concurrency, retry_errors, progress,
                                                          announce, http, say=_say)))
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


def _check_finite(flag: str, value: float | None, low: float, high: float | None = None) -> None:
    """A sampling parameter is a finite number in range (NaN and infinity are not JSON: no server takes them)."""
    if value is None:
        return
    if not math.isfinite(value) or value < low or (high is not None and value > high):
        fail(f"{flag} {value}: must be a number from {low:g}" + (f" to {high:g}" if high is not None else " up"))


def _check_data_path(raw: str | None) -> None:
    """``--data`` (or ``-O data=``) names a folder or a non-empty regular file: a device, a pipe (``/dev/zero``)
    or an empty file is one line before any benchmark reads it (a missing path: the benchmark explains its
    expected layout)."""
    if not raw:
        return
    p = Path(raw).expanduser()
    if not p.exists() or p.is_dir():
        return
    if not p.is_file():
        fail(f"--data {raw}: not a regular file or folder")
    if p.stat().st_size == 0:
        fail(f"--data {raw}: empty file (0 bytes), no items")


def _data_message(bench: Any, e: Exception) -> str:
    """The message of a data error; a file that is not text is named (the decoder's message does not)."""
    raw = bench.options.data
    if isinstance(e, UnicodeDecodeError) and raw:
        where = f"--data {raw}" if Path(raw).is_file() else f"a file under --data {raw}"
        return f"{where}: not UTF-8 text ({e.reason} at byte {e.start + 1}); expected JSON, JSON lines or Parquet"
    return str(e)


def _read_system(system: str | None) -> str | None:
    if system and system.startswith("@"):
        try:
            return Path(system[1:]).read_text(encoding="utf-8")
        except OSError as e:
            fail(f"--system {system}: {e.strerror or e}")
    return system or None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _extra_body(text: str | None) -> str | None:
    try:
        if text:
            json.loads(text, parse_constant=_no_constant)  # NaN / Infinity: Python reads them, servers do not
        return GenParams.canonical_extra(text)
    except ValueError as e:
        fail(f"--extra-body: {e}")


LOCAL_KINDS = ("llamacpp", "hf", "vllm")


def _gen_params(bench: Any, model: str, settings: str | None,
                flags: dict[str, Any]) -> tuple[GenParams, dict[str, Any] | None]:
    """The benchmark's defaults, then the named settings (printed), then explicit flags; and the record of
    the settings applied for the run."""
    import dataclasses

    from ..core.presets import presets_for

    base: GenParams = bench.default_params
    given = {k: v for k, v in flags.items() if v is not None}
    record = None
    if settings:
        presets = presets_for(bench)
        if settings not in presets:
            known = ", ".join(presets) or "none"
            fail(f"{bench.name} has no settings {settings!r}; known: {known}")
        preset = presets[settings]
        overridden = sorted(k for k in given if k in preset.params and given[k] != preset.params[k])
        for line in preset.describe(overridden):
            typer.echo(line, err=True)
        params = preset.apply(base, given)
        record = preset.record(overridden)
    else:
        params = dataclasses.replace(base, **given)
    if model.partition("/")[0] in LOCAL_KINDS:
        ignored = [k for k in ("reasoning_effort", "extra_body") if getattr(params, k) is not None]
        if ignored:
            typer.echo(f"note: {', '.join(ignored)} apply to HTTP backends only; {model} ignores them", err=True)
    return params, record


def _check_selects_items(bench: Any, spec: Any) -> None:
    """A subset/mode pair that selects nothing is a mistake, not an empty run."""
    from ..runner.engine import load_items

    try:
        if load_items(bench, spec):
            return
        target = spec.benchmark + (f":{spec.subset}" if spec.subset else "")
        applies = [s for s in bench.subsets() if bench.load(s, spec.mode)]
    except (FileNotFoundError, ValueError, KeyError) as e:
        fail(str(e.args[0]) if isinstance(e, KeyError) else _data_message(bench, e))
    hint = (f"mode {spec.mode!r} applies to: {', '.join(applies)}" if applies
            else f"no subset has items in mode {spec.mode!r}")
    fail(f"{target} has no items in mode {spec.mode!r}; {hint}")


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


@app.command("import")
def import_cmd(
    benchmark: Annotated[str, typer.Argument(help="a benchmark (reasoneval list)")],
    paths: Annotated[list[str], typer.Argument(help="files or folders of completions made elsewhere")],
    store: StoreOpt = DEFAULT_STORE,
    scoring: Annotated[str | None, typer.Option(help="the benchmark's scoring (same as -O scoring=...)")] = None,
    name: Annotated[str | None, typer.Option(help="model name of the imported run(s) (default: what the files name)")] = None,
    as_: Annotated[str | None, typer.Option("--as", help="lm-eval / inspect-ai logs: the target BENCHMARK:SUBSET[:MODE] (default: from the task name)")] = None,
    fmt: Annotated[str, typer.Option("--format", help="auto | native (the benchmark's own files) | logs (lm-eval samples, inspect-ai logs)")] = "auto",
    json_out: Annotated[bool, typer.Option("--json", help="print the imported runs as JSON")] = False,
    option: OptionsOpt = None,
) -> None:
    """Store completions made elsewhere as runs (one per model and mode), scored as `rescore` scores them:
    the benchmark's own output files (`rescore`'s formats), lm-evaluation-harness `--log_samples` files and
    inspect-ai eval logs."""
    from ..runner.harness_logs import harness_rows, is_harness_log
    from ..runner.importer import import_rows

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
            got = import_rows(bench, st, harness_rows(paths, bench, as_, name), options, "harness logs", name)
        else:
            got = import_rows(bench, st, bench.outside_rows(paths, options), options,
                              f"{benchmark} outside files", name)
    except (NotImplementedError, ValueError, OSError) as e:
        fail(str(e))
    finally:
        st.close()
    for bad in got.errors:
        typer.echo(f"error: {bad}", err=True)
    if not got.runs:
        fail(f"no rows found in {', '.join(paths)}", 1 if got.errors else 2)
    if json_out:
        typer.echo(json.dumps([{"run": r.run_id, "model": r.model, "mode": r.mode, "items": r.items,
                                "completions": r.completions, "existed": r.existed, "files": r.files}
                               for r in got.runs], ensure_ascii=False, indent=1))
    else:
        for r in got.runs:
            what = "already stored" if r.existed else f"{r.items} items"
            typer.echo(f"{r.run_id}  {r.model}  {r.mode}  {what}")
    new = sum(1 for r in got.runs if not r.existed)
    typer.echo(f"{benchmark} import: {new} new run(s), {len(got.runs) - new} already stored, "
               f"{len(got.errors)} bad row(s) -> {store}", err=True)
    raise typer.Exit(1 if got.errors else 0)


