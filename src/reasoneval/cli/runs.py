"""CLI commands on stored runs: ``rm`` (delete runs) and ``show`` (one item across runs, side by side).

Attached to the main app by ``register(app)`` (``cli/commands.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import DEFAULT_STORE, StoreOpt


def rm(
    runs: Annotated[list[str], typer.Argument(help="run ids (or unique prefixes)")],
    store: StoreOpt = DEFAULT_STORE,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="delete without asking")] = False,
    drop_cache: Annotated[bool, typer.Option("--drop-cache", help="also forget the runs' cached responses, so a re-run asks the model again")] = False,
) -> None:
    """Delete runs with their completions and verdicts (the response cache stays, so a re-run is free, unless
    --drop-cache)."""
    from ..report.collect import resolve_run
    from ..report.compare import plain
    from . import common as cli

    st = cli.existing_store(store)
    try:
        found = [resolve_run(st, r) for r in runs]
    except KeyError as e:
        cli.fail(str(e.args[0]))
    ids = list(dict.fromkeys(r["run_id"] for r in found))
    listing = "\n".join(f"  {plain(r['run_id'])}  {plain(r['benchmark'])}  {plain(r['model'])}  "
                        f"{st.count(r['run_id'])} completions" for r in {r["run_id"]: r for r in found}.values())
    if not yes:
        if not sys.stdin.isatty():
            cli.fail(f"would delete {len(ids)} run(s) from {store}:\n{listing}\nadd --yes to delete them")
        typer.echo(f"delete {len(ids)} run(s) from {store}?\n{listing}")
        if not typer.confirm("delete", default=False):
            cli.fail("nothing deleted", code=1)
    from contextlib import ExitStack

    with ExitStack() as locks:  # a run that is running in another process is not pulled from under it
        for run_id in ids:
            locks.enter_context(st.run_lock(run_id))
        removed = st.delete_runs(ids, drop_cache=drop_cache)
    st.close()
    cache = (f"; {removed.pop('cache')} cached responses forgotten" if drop_cache
             else "; the response cache stays (--drop-cache forgets it)")
    typer.echo(f"deleted {removed['runs']} run(s): " + ", ".join(f"{n} {t}" for t, n in removed.items()
                                                                   if t != "runs") + " rows" + cache, err=True)


def show(
    item: Annotated[str, typer.Argument(help="item key, e.g. cipher/12")],
    runs: Annotated[list[str], typer.Argument(help="two or more run ids (or unique prefixes); the first is the reference")],
    store: StoreOpt = DEFAULT_STORE,
    html: Annotated[Path | None, typer.Option("--html", help="write the side-by-side view as an HTML page")] = None,
) -> None:
    """One item across several runs side by side: verdicts, extracted answers and completions, with the
    differences from the first run marked."""
    from ..core.outfile import OutputError, check_target, write_text
    from ..report.compare import item_sides, to_html, to_text
    from . import common as cli

    if html is not None:
        try:
            check_target(html)
        except OutputError as e:
            cli.fail(str(e))
    st = cli.existing_store(store, readonly=True)
    try:
        sides = item_sides(st, item, runs)
    except KeyError as e:
        cli.fail(str(e.args[0]))
    if html is not None:
        try:
            write_text(html, to_html(item, sides))
        except OutputError as e:
            cli.fail(str(e))
        typer.echo(f"wrote {html}", err=True)
        return
    with cli.stdout_guard():
        typer.echo(to_text(item, sides, color=sys.stdout.isatty()), nl=False)


def register(app: typer.Typer) -> None:
    app.command("rm")(rm)
    app.command("show")(show)
