"""``report`` (a run's tables: terminal, JSON, HTML, Markdown, CSV, LaTeX), ``runs`` (the store's runs), ``export``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import registry
from .common import DEFAULT_STORE, JsonOpt, StoreOpt, app, existing_store, fail


@app.command()
def report(
    runs: Annotated[list[str], typer.Argument(help="run ids (or unique prefixes)")],
    store: StoreOpt = DEFAULT_STORE,
    json_out: JsonOpt = False,
    html: Annotated[Path | None, typer.Option(help="write a self-contained HTML report")] = None,
    md: Annotated[Path | None, typer.Option(help="write the tables as Markdown")] = None,
    csv_path: Annotated[Path | None, typer.Option("--csv", help="write the tables as typed CSV, one file per table (NAME.csv, NAME-2-<title>.csv, ...)")] = None,
    ci: Annotated[bool, typer.Option("--ci", help="add 95% bootstrap confidence intervals per run and subset")] = False,
    latex: Annotated[Path | None, typer.Option("--latex", help="write a LaTeX document that pdflatex compiles (and the tables alone, for \\input, beside it as <stem>-tables.tex)")] = None,
    prices: Annotated[Path | None, typer.Option("--prices", help="price file (YAML/JSON: model -> input/output/reasoning per 1M tokens): adds a cost table")] = None,
    tables: Annotated[str | None, typer.Option("--tables", help="main | rules | all | NAME,... (default: every table for up to 3 runs, the main tables for more; per-rule tables on request)")] = None,
    print_too: Annotated[bool, typer.Option("--print", help="also print the tables when writing files")] = False,
    paper: Annotated[bool, typer.Option("--paper/--no-paper", help="the published values (paper, Δ) beside ours, where the benchmark has them")] = True,
    debug: Annotated[bool, typer.Option("--debug", help="a benchmark's failure with its traceback")] = False,
) -> None:
    """The tables of one or more runs: on the terminal (or --json), or written to HTML/Markdown/CSV/LaTeX files
    (then nothing is printed unless --print). Every format carries the same tables, the published values beside
    ours where a benchmark has them."""
    from ..core.outfile import OutputError, check_target, output_path, write_text
    from ..report import formats, render
    from ..report.assemble import Selection
    from ..runner.gcquiet import paused
    from .common import load_report, show_report

    files = [t for t in (md, csv_path, html, latex) if t is not None]
    try:
        for target in files:
            check_target(target)
        if latex is not None:
            check_target(_tables_file(latex))
    except OutputError as e:
        fail(str(e))
    price_table = None
    if prices is not None:
        from ..report.cost import PriceError, load_prices

        try:
            price_table = load_prices(prices)
        except PriceError as e:
            fail(str(e))
    st = existing_store(store, readonly=True)
    sel = Selection.parse(tables, ci=ci, prices=price_table, paper=paper)
    # the tables (and the HTML page's tables and plots) need compact rows only; the HTML item browser reads
    # each run's prompts and texts in turn (one run's held at a time)
    with paused():  # the CLI owns its collector (runner/gcquiet.py): the rows read are acyclic
        rep = load_report(st, runs, selection=sel, debug=debug)
    written: list[Path] = []
    try:  # each file all or nothing (core/outfile.py); a failure is one line
        if md:
            write_text(md, render.report_markdown(rep, paper))
            written.append(md)
        if csv_path:
            for path, text in render.report_csv_files(rep, csv_path):
                write_text(path, text)
                written.append(path)
        if latex:
            from ..report.latex import report_latex

            doc, body = report_latex(rep, paper)
            write_text(latex, doc)
            written.append(latex)
            write_text(_tables_file(latex), body)
            written.append(_tables_file(latex))
        if html:
            from ..report.html_page import write_html

            with output_path(html) as tmp:
                shared: dict[str, Any] = {}  # the runs of one protocol send the same prompts: each decoded once
                side = write_html(rep.views, tmp, prices=price_table, final=html, report=rep,
                                  texts=lambda v: st.answer_texts(v.run["run_id"], prompt_cache=shared),
                                  aside=True)  # the CLI owns its process: the plots drawn in a forked one
            written.append(html)
            if side:  # a large report: the item texts are a folder beside the page
                written.append(side[0].parent)
    except OutputError as e:
        for path in written:
            typer.echo(f"wrote {path}", err=True)
        fail(str(e))
    for path in written:
        typer.echo(f"wrote {path}", err=True)
    if json_out or print_too or not files:
        with paused():
            show_report(rep, json_out, st, paper=paper)
    elif (note := formats.left_out_note(rep)) is not None:
        typer.echo(note, err=True)


def _tables_file(latex: Path) -> Path:
    """Where ``--latex FILE`` puts the tables alone (for ``\\input``): ``<stem>-tables.tex`` beside FILE."""
    return latex.with_name(f"{latex.stem}-tables{latex.suffix or '.tex'}")


@app.command("runs")
def runs_cmd(
    store: StoreOpt = DEFAULT_STORE,
    json_out: JsonOpt = False,
) -> None:
    """List the runs in a store: id, benchmark, subset, mode, model, options (scoring, data, limit, ...), items,
    accuracy, date."""
    import datetime as dt

    from ..core.benchmark import Table
    from ..report import render
    from ..report.labels import display_name, mode_label

    st = existing_store(store, readonly=True)
    tallies = st.tallies()
    rows, extra = [], []
    for r in st.find_runs():
        t = tallies.get(r["run_id"], {"items": 0, "correct": 0, "errors": 0})
        scored = t["items"] - t["errors"]
        acc = round(100 * t["correct"] / scored, 2) if scored else None
        when = dt.datetime.fromtimestamp(r["updated"] or r["created"]).strftime("%Y-%m-%d %H:%M")
        opts, limit = _run_options(r.get("spec") or {})
        rows.append([r["run_id"], r["benchmark"], r["subset"], mode_label(r), display_name(r), r["model"],
                     _identity_text(r.get("spec") or {}), _options_text(opts, limit),
                     t["items"], acc, t["errors"], r["status"], when])
        extra.append({"options": opts, "limit": limit, "model_identity": _identity_of(r.get("spec") or {}),
                      "mode": r["mode"], "protocol": (r.get("spec") or {}).get("protocol")})
    cols = ["run", "benchmark", "subset", "mode", "name", "model", "identity", "options", "items", "accuracy",
            "errors", "status", "updated"]
    if json_out:
        docs = [{**dict(zip(cols, r, strict=True)), **x} for r, x in zip(rows, extra, strict=True)]
        from ..core.safetext import json_shown

        typer.echo(json_shown(docs, indent=1))
    elif not rows:
        typer.echo(f"no runs in {store}", err=True)
    else:
        render.to_terminal([Table(f"runs in {store}", cols, rows)])


def _identity_of(spec: dict[str, Any]) -> dict[str, Any]:
    """How a stored run's model is identified (``models/identity.py``): its key, how it was made, the fingerprint
    or the served model and endpoints; a run stored before identities were recorded: its model string."""
    got = spec.get("model_identity")
    out: dict[str, Any] = dict(got) if isinstance(got, dict) else {"how": "string"}
    out["key"] = spec.get("model_id") or spec.get("model")
    for k in ("served_model", "endpoints", "previous_ids"):
        if spec.get(k):
            out[k] = spec[k]
    return out


def _identity_text(spec: dict[str, Any]) -> str:
    """``weights s:1a2b3c4d5e6f (sampled, 3 files)``, ``served qwen`` (``-> <served id>``), or empty."""
    ident = _identity_of(spec)
    fp = ident.get("fingerprint")
    if ident.get("how") == "weights" and isinstance(fp, dict):
        text = (f"weights {str(fp.get('method', '?'))[0]}:{str(fp.get('digest', ''))[:12]} "
                f"({fp.get('method')}, {fp.get('files')} files)")
    elif ident.get("how") == "served":
        text = f"served {ident.get('name', '')}" + (f" -> {ident['served_model']}" if ident.get("served_model")
                                                    else "")
    else:
        text = ""
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", text)


def _run_options(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A stored run's option values (every one the record holds, defaults included: ``scoring=official`` is
    shown, not implied) and how its items were limited (None: all items)."""
    from ..runner.score_stored import limit_of

    opts = spec.get("options")
    opts = dict(opts) if isinstance(opts, dict) else {}
    if spec.get("limit") is None:
        return opts, None
    lim = limit_of(spec)
    limit = {"n": spec["limit"], "mode": lim["limit_mode"]}
    if lim["limit_mode"] != "first":
        limit["seed"] = lim["limit_seed"]
    return opts, limit


def _options_text(opts: dict[str, Any], limit: dict[str, Any] | None) -> str:
    """``scoring=official limit=10(sample,seed=0)``: options without a value (None) left out."""
    parts = [f"{k}={json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v}"
             for k, v in sorted(opts.items()) if v is not None]
    if limit is not None:
        how = "first" if limit["mode"] == "first" else f"{limit['mode']},seed={limit.get('seed', 0)}"
        parts.append(f"limit={limit['n']}({how})")
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", " ".join(parts))  # a stored value never drives the terminal


@app.command()
def export(
    run_ref: str,
    out: Annotated[Path, typer.Argument(help=".jsonl, .json, .csv or .parquet")],
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Export a run's completions and verdicts (one row per completion; the suffix picks the format)."""
    from ..core.outfile import OutputError, check_target
    from ..report.collect import resolve_run
    from ..store.export import export as do_export
    from ..store.export import export_format

    try:  # a path that cannot be written is reported before anything is read
        check_target(out)
        export_format(out)
    except OutputError as e:
        fail(str(e))
    st = existing_store(store, readonly=True)
    try:
        run = resolve_run(st, run_ref)
        n = do_export(st, run["run_id"], "default", out, _golds(run, st))
    except OutputError as e:
        fail(str(e))
    except (KeyError, RuntimeError) as e:
        fail(str(e.args[0]))
    typer.echo(f"wrote {n} rows to {out}", err=True)


def _golds(run: dict[str, Any], st: Any) -> dict[str, Any]:
    """Item key -> gold answer for a stored run (empty when its data cannot be loaded any more); an imported run's
    golds are those it was scored against, a Hub run's come from the commit it recorded, never from what the Hub
    serves now."""
    from ..hub.pinned import pinned_to
    from ..runner.engine import load_items
    from ..runner.score_stored import spec_of
    from ..store.imported import stored_items

    try:
        bench = registry.for_run(run)
        kept = stored_items(st, run["run_id"])  # an imported run: the golds it was scored against
        if kept:
            return {it.key: it.gold for it in kept}
        with pinned_to(run):
            return {it.key: it.gold for it in load_items(bench, spec_of(run))}
    except Exception:  # noqa: BLE001 - an export never fails for want of the data: golds are then null
        return {}


