"""What every command shares, defined once: the app, the shared options (``--store``, ``--json``, ``--offline``,
``-O``), the exit statuses, failing with one line, opening a store, a benchmark with its options, the report
printed after a command."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from ..core import registry

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help=f"Reasoning benchmark evaluation ({', '.join(registry.names())}).")

#: exit statuses of ``reasoneval run`` (README "Exit status"): every item answered; the run finished but some
#: items failed (stored as errors, left out of accuracy); every call failed or the engine died; a usage error
#: (nothing was run; one ``error:`` line); interrupted runs exit 128 + the signal (130 for Ctrl-C)
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SOME_FAILED = 0, 1, 2, 3
EXIT_STATUS_HELP = (f"Exit status: {EXIT_OK} every item answered; {EXIT_SOME_FAILED} the run finished but some items "
                    f"failed (--retry-errors re-asks them); {EXIT_FAILED} every call failed or the engine died; "
                    f"{EXIT_USAGE} a usage or setup error (one error: line); 130 / 143 interrupted (resumable).")

StoreOpt = Annotated[Path, typer.Option("--store", envvar="REASONEVAL_STORE", help="SQLite run store")]
DEFAULT_STORE = Path("reasoneval.db")
JsonOpt = Annotated[bool, typer.Option("--json", help="print the result as JSON (one document on standard output)")]
OfflineOpt = Annotated[bool, typer.Option("--offline", help="Hugging Face Hub releases from the local cache only, "
                                                            "no network (as HF_HUB_OFFLINE=1)")]


def fail(msg: str, code: int = EXIT_USAGE) -> NoReturn:
    from ..core.safetext import shown

    typer.echo(f"error: {shown(msg, keep_newlines=True)}", err=True)  # file and model names are outside text
    raise typer.Exit(code)


def existing_store(path: Path, readonly: bool = False) -> Any:
    """Open a store that must already exist: commands that read runs never create an empty one.
    ``readonly``: nothing is created or changed (works on read-only files and file systems)."""
    from ..store.sqlite import RunStore

    if not path.exists():
        fail(f"no store at {path}: run `reasoneval run ...` first, or point --store / REASONEVAL_STORE at one")
    return RunStore(path, readonly=readonly)


def bench_named(name: str) -> Any:
    try:
        return registry.get(name)
    except registry.UnknownBenchmark as e:
        fail(str(e))


def options_help(bench: Any) -> str:
    """``key=default`` for each of a benchmark's options (``-O key=value``)."""
    return ", ".join(f"{k}={v}" for k, v in bench.Options().to_json().items())


OptionsOpt = Annotated[list[str] | None, typer.Option(
    "--option", "-O", help="benchmark option key=value, repeatable (e.g. -O scoring=corrected; "
                           "`reasoneval list` shows each benchmark's options)")]


def bench_with_options(name: str, pairs: list[str] | None, data: str | None) -> Any:
    """A fresh instance of benchmark ``name`` with its typed options from ``-O`` and ``--data``."""
    from ..core.errors import OptionError

    base = bench_named(name)
    try:
        opts = base.Options.parse(pairs or [], data, benchmark=name)
    except OptionError as e:
        fail(str(e))
    return registry.create(name, opts)


def load_report(st: Any, refs: list[str], scorer: str = "default", slim: bool = True, selection: Any = None,
                debug: bool = False) -> Any:
    """The views of ``refs`` and their one assembled :class:`~reasoneval.report.assemble.Report`; a run that is
    not there, a ``--tables`` name that is not there and a benchmark's own failure are one line each (the last
    with its traceback under ``debug``). ``slim``: compact rows (no prompts, no texts; the tables need none)."""
    from ..report import collect
    from ..report.assemble import SelectionError, assemble

    try:
        shared: dict[str, Any] = {}  # the runs of one protocol send the same prompts: each decoded once
        views = [collect.view(st, r, scorer, prompts=not slim, slim=slim, prompt_cache=shared) for r in refs]
        return assemble(views, selection)
    except collect.RunNotFound as e:
        fail(str(e.args[0]))
    except SelectionError as e:
        fail(str(e))
    except collect.PluginError as e:
        if debug:
            import traceback

            traceback.print_exception(e.__cause__ or e, file=sys.stderr)
        fail(str(e) + ("" if debug else " (--debug shows the traceback)"))


def print_report(st: Any, refs: list[str], json_out: bool, scorer: str = "default", ci: bool = False,
                 prompts: bool = True, prices: Any = None) -> None:
    """The report of ``refs`` on standard output (terminal tables, or ``json_out``: one JSON document); the table
    after a run. Tables need no prompt or text: the rows are read compact (``collect.slim_rows``)."""
    from ..report.assemble import Selection
    from ..runner.gcquiet import paused

    with paused():  # the CLI owns its collector (runner/gcquiet.py): the rows read are acyclic
        rep = load_report(st, refs, scorer, slim=True, selection=Selection(ci=ci, prices=prices))
        show_report(rep, json_out, st, scorer)


def show_report(rep: Any, json_out: bool, st: Any = None, scorer: str = "default", paper: bool = True) -> None:
    """Print an assembled report: JSON, or the tables (with published values) and one line per run."""
    from ..core.safetext import shown
    from ..core.tokens import show_count
    from ..report import formats, render

    with stdout_guard():
        if json_out:
            typer.echo(formats.json_text(rep))
            sys.stdout.flush()
            return
        render.to_terminal([formats.shown(rt, paper) for rt in rep.tables])
        note = formats.left_out_note(rep)
        if note:
            typer.echo(note)
        for v, info in zip(rep.views, rep.runs, strict=True):
            s = v.stats
            n = len({r.item_key for r in v.rows})  # items, not item x sample answers
            answers = f" ({s['items']} answers)" if s["items"] != n else ""
            spec = v.run.get("spec") or {}
            origin = f" ({spec['protocol']})" if isinstance(spec, dict) and spec.get("protocol") else ""
            typer.echo(f"{shown(v.run['run_id'])} {shown(v.run['model'])}{shown(origin)}: {n} items{answers}, "
                       f"{s['errors']} errors, "
                       f"{s['unextractable']} unextractable ({s['truncated']} truncated), "
                       f"{show_count(s['prompt_tokens'])}+{show_count(s['completion_tokens'])} tokens"
                       + (f" ({unknown} of {s['calls']} calls without usage)"
                          if (unknown := max(s.get('prompt_tokens_unknown') or 0,
                                             s.get('completion_tokens_unknown') or 0)) else "")
                       + ("" if info.complete else f"; incomplete: {shown(info.missing)}, not ranked with complete "
                          "runs"))
            if st is not None and s["items"] and s["unextractable"] == s["items"]:
                _unextractable_hint(st, v.run, scorer)
        sys.stdout.flush()


def _unextractable_hint(st: Any, run: dict[str, Any], scorer: str, k: int = 3) -> None:
    """Every answer of a run was unextractable: the first ``k`` answers with their verdicts, and the command that
    shows one in full (a table of 0.00 alone says nothing about why)."""
    import re

    shown: list[str] = []
    key = ""
    for c, verdict in st.answers(run["run_id"], scorer, prompts=False):
        text = re.sub(r"\s+", " ", c.completion.text or "").strip()
        text = re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", text)
        what = verdict.outcome.value if verdict is not None else "no verdict"
        how = f", {verdict.method}" if verdict is not None and verdict.method else ""
        shown.append(f"  {c.item_key}: [{what}{how}] {text[:160]!r}" + ("..." if len(text) > 160 else ""))
        key = key or c.item_key
        if len(shown) >= k:
            break
    if not shown:
        return
    typer.echo(f"every answer of run {run['run_id']} was unextractable (no final answer in the format the benchmark "
               f"asks for); the first {len(shown)}:")
    for line in shown:
        typer.echo(line)
    typer.echo(f"  see one in full: reasoneval show {key} {run['run_id']}")


@contextlib.contextmanager
def stdout_guard() -> Iterator[None]:
    """Printing to a standard output that is a full device or a closed pipe (``> /dev/full``, ``| head``) is one
    line (or, for a reader that is gone, nothing), not a traceback."""
    try:
        yield
    except OSError as e:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more reaches the broken output
        if isinstance(e, BrokenPipeError):
            raise typer.Exit(0) from None
        fail(f"cannot write to standard output: {e.strerror or e}")




@dataclass(frozen=True)
class CommandGroups:
    """Where a benchmark adds its commands (``Benchmark.cli``)."""

    root: typer.Typer
    generate: typer.Typer
    build: typer.Typer


def benchmark_names() -> str:
    """``a | b | c``: the registered benchmarks, for help texts (read from the entry points, never written out)."""
    return " | ".join(registry.names())
