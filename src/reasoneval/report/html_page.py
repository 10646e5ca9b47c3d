"""Self-contained HTML report: leaderboards (with published numbers), plots, a per-item browser, run metadata.

``write_html(views, path)`` writes one file that needs no network: CSS, JS and plots (PNG, base64) are inline.
Everything a model wrote is treated as hostile text:

* server-rendered parts go through ``html.escape``;
* item data travel as ONE JSON blob in ``<script type="application/json">`` with ``<``, ``>``, ``&``, U+2028 and
  U+2029 written as ``\\u003c``-style escapes, so the blob can never close its script tag;
* the browser script puts model text into the page with ``textContent`` only;
* a Content-Security-Policy allows exactly the inline script and style written here (sha256 hashes),
  ``img-src data:`` and nothing else, so even an escaping bug could not run injected code or load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from ..core import number_format, registry
from ..core.benchmark import Benchmark, Table, TableKind
from ..core.safetext import html_safe
from ..core.table import ACCURACY, Cell, column_id, number_of
from ..core.tokens import show_total
from ..core.values import Item, Prompt
from . import item_chunks as ic
from .collect import RunView
from .cost import Price
from .labels import mode_label
from .plots import Plot, accuracy, make_plots, make_plots_aside, run_labels

PAGE_SIZE = 50


def esc(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def fmt(x: Any) -> str:
    """A cell as text: numbers, p-values and missing values as every renderer writes them
    (:mod:`.numbers`); dicts and lists as JSON."""
    if isinstance(x, dict | list):
        return json.dumps(x, ensure_ascii=False, default=str)
    return number_format.cell(x)


def _asset(name: str) -> str:
    return resources.files("reasoneval.report.assets").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def json_for_script(obj: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">`` (and still valid JSON)."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    return (s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


# ---------------------------------------------------------------- leaderboard

@dataclass
class MergedTable:
    title: str
    columns: list[str]
    rows: list[list[Any]]
    run_of_row: list[int]  # index into views
    notes: list[str]
    kind: TableKind = TableKind.GENERIC


def merge_tables(views: list[RunView], idx: list[int], labels: list[str]) -> list[MergedTable]:
    """As ``collect.merge``: same (title, columns) -> one table with a model column; remembers each row's run."""
    merged: dict[tuple[str, tuple[str, ...]], MergedTable] = {}
    for i in idx:
        for t in views[i].tables:
            key = (str(t.title), tuple(str(c) for c in t.columns))
            if key not in merged:
                merged[key] = MergedTable(t.title, ["model", *t.columns], [], [], list(t.notes), t.kind)
            m = merged[key]
            for r in t.rows:
                m.rows.append([labels[i], *r])
                m.run_of_row.append(i)
            for n in t.notes:
                if n not in m.notes:
                    m.notes.append(n)
    return list(merged.values())


def _td_cmp(c: Cell) -> str:
    """A cell beside its published value: ours, "paper X (X2)" and "Δ ours − paper (Δ2)"."""
    d = c.delta or 0.0
    d2 = c.delta_secondary
    cls = "zero" if abs(d) < 0.005 else ("pos" if d > 0 else "neg")
    paper = number_format.cell(c.paper) + (f" ({number_format.cell(c.paper_secondary)})" if c.paper_secondary is not None else "")
    delta = f"{d:+.2f}" + (f" ({d2:+.2f})" if d2 is not None else "")
    return (f'<td class="num cmpcell" data-v="{c.number}"><span class="v">{esc(fmt(c))}</span>'
            f'<span class="cmp"><span class="paper" title="published">paper {esc(paper)}</span> '
            f'<span class="d {cls}" title="ours − paper">Δ {esc(delta)}</span></span></td>')


def _compared(x: Any) -> bool:
    return isinstance(x, Cell) and x.paper is not None and x.number is not None


def _td(val: Any) -> str:
    if _compared(val):
        return _td_cmp(val)
    num = number_of(val)  # typed: a Cell's value, an int or float; text is never parsed
    if num is not None:
        return f'<td class="num" data-v="{num}">{esc(fmt(val))}</td>'
    return f"<td>{esc(fmt(val))}</td>"


_ABSENT = ("", "-", None)


def drop_empty_columns(m: MergedTable) -> tuple[MergedTable, list[int]]:
    """``m`` without the columns that no row has a value in ('-' or empty), and the indices kept: a
    puzzle-only protocol (trick) is not shown in Table 2's layout with four empty category columns. The model
    column always stays."""
    keep = [i for i in range(len(m.columns))
            if i == 0 or not m.rows
            or any(i < len(r) and (r[i] if not isinstance(r[i], str) else r[i].strip()) not in _ABSENT
                   for r in m.rows)]
    if len(keep) == len(m.columns):
        return m, keep
    return MergedTable(m.title, [m.columns[i] for i in keep], [[r[i] for i in keep if i < len(r)] for r in m.rows],
                       m.run_of_row, m.notes, m.kind), keep


def natural_key(s: Any) -> tuple[Any, ...]:
    """Sort key that orders embedded numbers by value: ``cipher/2`` before ``cipher/10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", str(s)) if p)


def with_paper(views: list[RunView], m: MergedTable, bench: str) -> MergedTable:
    """``m`` with the published values its benchmark puts on its cells and the notes that go with them
    (``Benchmark.with_paper``, given each row's run)."""
    b = _benchmark(bench)
    if b is None:
        return m
    t = Table(m.title, m.columns[1:], [r[1:] for r in m.rows], list(m.notes), m.kind)
    got = b.with_paper(t, [views[i].run for i in m.run_of_row])
    if got is t:
        return m
    rows = [[r[0], *g] for r, g in zip(m.rows, got.rows, strict=True)]
    return MergedTable(m.title, [m.columns[0], *got.columns], rows, m.run_of_row, list(got.notes), m.kind)


def _benchmark(name: str) -> Benchmark | None:
    """The benchmark of that name (the registry's shared instance), for its extension points; None when it is
    not installed."""
    try:
        return registry.get(name)
    except registry.UnknownBenchmark:
        return None


def render_table(views: list[RunView], m: MergedTable, bench: str, paper: bool = True) -> str:
    """``paper``: put the benchmark's published values on the cells (False: the table has them already)."""
    if paper:
        m = with_paper(views, m, bench)
    notes = m.notes
    notes_html = "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    m, _ = drop_empty_columns(m)
    compared = any(_compared(x) for r in m.rows for x in r)
    pivot = None if compared else _pivot(m)
    full = _table_html(m, compared)
    if pivot is not None:
        return (f'<div class="tablewrap"><h4>{esc(m.title)}</h4>{pivot}{notes_html}'
                f'<details class="full"><summary>full table</summary>{full}</details></div>')
    return f'<div class="tablewrap"><h4>{esc(m.title)}</h4>{full}{notes_html}</div>'


def _pivot(m: MergedTable) -> str | None:
    """Models as rows, labels as columns, for a long per-label table of several runs (a leaderboard view), on
    the column whose id is :data:`~reasoneval.core.table.ACCURACY`."""
    models = list(dict.fromkeys(r[0] for r in m.rows))
    if len(models) < 2 or len(m.columns) < 3:
        return None
    if not all(len(r) > 1 and isinstance(r[1], str) and number_of(r[1]) is None for r in m.rows):  # labels
        return None
    acc = next((i for i, c in enumerate(m.columns) if i > 1 and column_id(c) == ACCURACY), None)
    if acc is None:
        return None
    labels = list(dict.fromkeys(r[1] for r in m.rows))
    cells: dict[tuple[str, str], Any] = {}
    for r in m.rows:
        if (r[0], r[1]) in cells:
            return None  # not one value per (model, label)
        cells[(r[0], r[1])] = r[acc] if acc < len(r) else None
    head = "".join(f'<th data-col="{i}">{esc(c)}</th>' for i, c in enumerate(["model", *labels]))
    body = "".join("<tr>" + _td(mod) + "".join(_td(cells.get((mod, lab))) for lab in labels) + "</tr>"
                   for mod in models)
    return (f'<p class="note">{esc(m.columns[acc])} by {esc(m.columns[1])}:</p><table class="lb pivot sortable">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def _table_html(m: MergedTable, compared: bool) -> str:
    head = "".join(f'<th data-col="{i}">{esc(c)}</th>' for i, c in enumerate(m.columns))
    body = [f'<tr data-run="{m.run_of_row[ri]}">{"".join(_td(x) for x in r)}</tr>' for ri, r in enumerate(m.rows)]
    cls = "lb sortable" + (" has-cmp" if compared else "")
    return f"<table class=\"{cls}\"><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def n_items(v: RunView) -> int:
    """Items, not (item, sample) rows: a run with --samples 4 over 10 items has 10 items."""
    return len({r.item_key for r in v.rows})


def _overview_tables(views: list[RunView], idx: list[int], labels: list[str]) -> str:
    """One ranking per protocol (mode): zero-shot, three-shot, trick, ... runs are never ranked in one list."""
    modes: dict[str, list[int]] = defaultdict(list)
    for i in idx:
        modes[mode_label(views[i].run)].append(i)  # an imported run of another harness's prompts apart
    if len(modes) == 1:
        return _overview_table(views, idx, labels)
    return "".join(_overview_table(views, modes[m], labels, m) for m in modes)


def _overview_table(views: list[RunView], idx: list[int], labels: list[str], mode: str | None = None) -> str:
    from .completeness import completeness

    rows = []
    for i in idx:
        v = views[i]
        acc, n = accuracy(v.rows)
        whole, why = completeness(v)
        # a run missing a category is not ranked among the complete ones (as in the paper's table)
        rows.append(((0 if whole else 1, -(acc if acc is not None else -1.0)), i, v, n, acc, why))
    rows.sort(key=lambda x: x[0])
    body = []
    for _, i, v, _n, acc, why in rows:
        s, run = v.stats, v.run
        mark = (f' <span class="incomplete" title="{esc(why)}">incomplete: {esc(why)}</span>' if why else "")
        cls = ' class="partial"' if why else ""
        body.append(
            f'<tr data-run="{i}"{cls}><td>{esc(labels[i])}{mark}</td>'
            f'<td>{esc(mode_label(run))}</td>'
            f'<td>{esc(run.get("subset") if _partial(run) else "all")}</td><td class="num" data-v="{n_items(v)}">'
            f'{esc(n_items(v))}</td>'
            + (f'<td class="num" data-v="{acc}">{number_format.text(acc)}</td>' if acc is not None else "<td></td>")
            + f'<td class="num" data-v="{s.get("errors", 0)}">{esc(s.get("errors", 0))}</td>'
            f'<td class="num" data-v="{s.get("extraction_failure_rate", 0)}">'
            f'{number_format.text(100 * float(s.get("extraction_failure_rate", 0) or 0))}%</td>'
            f'<td class="num" data-v="{s.get("mean_output_tokens", 0)}">{esc(s.get("mean_output_tokens", 0))}</td>'
            f'<td><a href="#run-{esc(run.get("run_id"))}"><code>{esc(run.get("run_id"))}</code></a></td></tr>')
    head = "".join(f'<th data-col="{k}">{h}</th>' for k, h in enumerate(
        ["model", "mode", "subset", "items", "accuracy", "errors", "extraction failures", "mean out tokens",
         "run"]))
    title = "Runs" + (f" · {mode or 'default'} protocol" if mode is not None else "")
    return (f'<div class="tablewrap"><h4>{esc(title)} (final-turn accuracy, failed calls excluded)</h4>'
            f'<table class="lb overview sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            f"</table></div>")


def _by_benchmark(views: list[RunView]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, v in enumerate(views):
        out[str(v.run.get("benchmark", "?"))].append(i)
    return out


def render_leaderboard(views: list[RunView], labels: list[str]) -> str:
    parts = []
    for bench, idx in _by_benchmark(views).items():
        tables = merge_tables(views, idx, labels)
        inner = _overview_tables(views, idx, labels) + "".join(render_table(views, m, bench) for m in tables)
        parts.append(f'<section class="bench" id="lb-{esc(re.sub(r"[^a-z0-9]", "", bench.lower()))}"><h3>{esc(bench)}</h3>{inner}</section>')
    if not parts:
        parts.append('<p class="note">No runs.</p>')
    return "".join(parts)


def render_report_tables(rep: Any) -> str:
    """The leaderboard of an assembled report (:mod:`.assemble`): per benchmark its runs' overview and its tables
    (published values already on the cells), per-rule tables collapsed; then the tables across runs."""
    views, labels = rep.views, rep.labels
    parts = []
    by_bench: dict[str, list[Any]] = defaultdict(list)
    for rt in rep.tables:
        if rt.benchmark is not None:
            by_bench[rt.benchmark].append(rt)
    for bench, idx in _by_benchmark(views).items():
        inner = [_overview_tables(views, idx, labels)]
        for rt in by_bench.get(bench, []):
            t = rt.table
            m = MergedTable(t.title, list(t.columns), [list(r) for r in t.rows],
                            [-1 if i is None else i for i in rt.runs], list(t.notes), t.kind)
            if rt.constants:
                m.notes.insert(0, "All rows: " + ", ".join(f"{k} {v}" for k, v in rt.constants.items()) + ".")
            body = render_table(views, m, bench, paper=False)
            if rt.group == "rules":
                body = (f'<details class="rules"><summary>{esc(t.title)} ({len(t.rows)} rows)</summary>'
                        f"{body}</details>")
            inner.append(body)
        parts.append(f'<section class="bench" id="lb-{esc(re.sub(r"[^a-z0-9]", "", bench.lower()))}">'
                     f'<h3>{esc(bench)}</h3>{"".join(inner)}</section>')
    cross = [rt.table for rt in rep.tables if rt.benchmark is None]
    if cross:
        parts.append(_cross_html(cross))
    if rep.left_out:
        from .formats import left_out_note

        parts.append(f'<p class="note">{esc(left_out_note(rep))}</p>')
    return "".join(parts) or '<p class="note">No runs.</p>'


def _cross_html(tables: list[Table]) -> str:
    parts = []
    for t in tables:
        head = "".join(f'<th data-col="{i}">{esc(c)}</th>' for i, c in enumerate(t.columns))
        body = "".join("<tr>" + "".join(_td(x) for x in r) + "</tr>" for r in t.rows)
        notes = "".join(f'<p class="note">{esc(n)}</p>' for n in t.notes)
        parts.append(f'<div class="tablewrap"><h4>{esc(t.title)}</h4><table class="lb sortable"><thead><tr>{head}'
                     f"</tr></thead><tbody>{body}</tbody></table>{notes}</div>")
    return f'<section class="bench" id="lb-paper-tables"><h3>Paper tables across runs</h3>{"".join(parts)}</section>'


def render_cross_run_tables(views: list[RunView], prices: dict[str, Price] | None = None) -> str:
    """Paper tables that span several runs (each benchmark's ``paper_tables``),
    then the samples (pass@k, maj@k) and cost tables."""
    from .addons import addon_tables
    from .paper_tables import extra_tables

    parts = []
    for t in [*extra_tables(views), *addon_tables(views, prices)]:
        head = "".join(f'<th data-col="{i}">{esc(c)}</th>' for i, c in enumerate(t.columns))
        body = "".join("<tr>" + "".join(_td(x) for x in r) + "</tr>" for r in t.rows)
        notes = "".join(f'<p class="note">{esc(n)}</p>' for n in t.notes)
        parts.append(f'<div class="tablewrap"><h4>{esc(t.title)}</h4><table class="lb sortable"><thead><tr>{head}'
                     f"</tr></thead><tbody>{body}</tbody></table>{notes}</div>")
    if not parts:
        return ""
    return f'<section class="bench" id="lb-paper-tables"><h3>Paper tables across runs</h3>{"".join(parts)}</section>'


# ---------------------------------------------------------------- plots / metadata

def render_plots(plots: list[Plot], notes: list[str]) -> str:
    out = [f'<p class="note plots-note">{esc(n)}</p>' for n in notes]
    for p in plots:
        lay = f' data-layout="{esc(json.dumps(p.layout, ensure_ascii=False))}"' if p.layout else ""
        out.append(f'<figure class="plot" id="plot-{esc(p.key)}"><img alt="{esc(p.title)}"{lay} '
                   f'src="data:image/png;base64,{p.png_b64}"><figcaption>{esc(p.title)}'
                   + (f" — {esc(p.caption)}" if p.caption else "") + "</figcaption></figure>")
    if not plots and not notes:
        out.append('<p class="note">No data to plot.</p>')
    return '<div class="plots">' + "".join(out) + "</div>"


def _date(ts: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(ts)))
    except (TypeError, ValueError):
        return ""


def _run_fields(v: RunView) -> list[tuple[str, Any]]:
    run, s = v.run, v.stats
    spec = run.get("spec") or {}
    params = spec.get("params") or {}
    acc, _ = accuracy(v.rows)
    fields: list[tuple[str, Any]] = [
        ("run id", run.get("run_id")), ("model", run.get("model")), ("benchmark", run.get("benchmark")),
        ("subset", run.get("subset") if _partial(run) else "all"), ("mode", mode_label(run)), ("status", run.get("status")),
        ("max_tokens", params.get("max_tokens")), ("temperature", params.get("temperature")),
        ("top_p", params.get("top_p")), ("stop", params.get("stop")), ("sampling seed", params.get("seed")),
        ("samples", spec.get("samples")), ("seed", spec.get("seed")), ("limit", spec.get("limit")),
        ("judge", spec.get("judge")), ("options", spec.get("options")),
        ("package version", spec.get("package_version")), ("data version", spec.get("data_version")),
        ("prompt version", spec.get("prompt_version")),
        ("created", _date(run.get("created"))), ("updated", _date(run.get("updated"))),
        ("items", n_items(v)), ("accuracy", number_format.text(acc) if acc is not None else ""),
        ("errors", s.get("errors")), ("unextractable", s.get("unextractable")),
        ("truncated", s.get("truncated")),
        ("extraction failure rate", f"{number_format.text(100 * float(s.get('extraction_failure_rate') or 0))}%"),
        ("prompt tokens", show_total(s.get("prompt_tokens"), s.get("prompt_tokens_unknown") or 0,
                                     s.get("calls") or 0)),
        ("completion tokens", show_total(s.get("completion_tokens"), s.get("completion_tokens_unknown") or 0,
                                         s.get("calls") or 0)),
        ("mean output tokens", s.get("mean_output_tokens")),
    ]
    if s.get("items") != n_items(v):  # several samples per item
        fields.insert(fields.index(("items", n_items(v))) + 1, ("answers (item x sample)", s.get("items")))
    known = {"benchmark", "subset", "mode", "model", "params", "samples", "seed", "limit", "judge", "options",
             "package_version", "data_version", "prompt_version"}
    fields += [(k, spec[k]) for k in sorted(spec) if k not in known]
    return fields


def render_runs(views: list[RunView], labels: list[str]) -> str:
    """One table, a column per run: the spec that makes each run reproducible, dates, tokens, failures."""
    if not views:
        return '<p class="note">No runs.</p>'
    fields = [_run_fields(v) for v in views]  # each run's once (its accuracy walks every row)
    per_run = [dict(f) for f in fields]
    names: list[str] = []
    for f in fields:
        for k, _ in f:
            if k not in names:
                names.append(k)
    head = "".join(f'<th id="run-{esc(v.run.get("run_id"))}">{esc(lab)}</th>'
                   for v, lab in zip(views, labels, strict=True))
    body = "".join(f"<tr><th>{esc(k)}</th>" + "".join(f"<td>{esc(fmt(f.get(k)))}</td>" for f in per_run) + "</tr>"
                   for k in names)
    return (f'<div class="tablewrap"><table class="meta"><thead><tr><th></th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


# ---------------------------------------------------------------- item data

_NO_PROMPT = Prompt()

class _Strings:
    """The report's prompts, deduplicated across its runs (the runs of one protocol send the same prompts, and
    prompts share rule text and templates): each distinct prompt once (``prompts``), its texts split into
    blank-line parts with each distinct long part once (``items``); a turn refers to its prompt by number."""

    MIN = 32
    KEPT = 65536

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}
        self.prompts: list[list[Any]] = []
        self._prompt_ids: dict[Any, int] = {}
        #: id(prompt) -> (prompt, its number): the runs' reads share their decoded prompt objects, so most
        #: turns find theirs here without hashing its texts (the prompt is held: its id is not reused)
        self._by_object: dict[int, tuple[Prompt, int]] = {}
        #: a text's parts (segment ids or strings), made once per distinct text
        self._texts: dict[str, list[int | str]] = {}

    def seg(self, s: str) -> int | str:
        if len(s) < self.MIN:
            return s
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.items)
            self.items.append(s)
        return i

    def text(self, s: str | None) -> Any:
        """A text as a plain string (short) or a list of parts (segment ids or strings) joined by blank lines."""
        if s is None:
            return None
        if len(s) < 48:
            return s
        out = self._texts.get(s)
        if out is None:
            out = self._texts[s] = [self.seg(p) for p in s.split("\n\n")]
        return out

    def prompt(self, p: Prompt) -> int:
        """The number of prompt ``p`` in :attr:`prompts` (added when new): [[role, text], ...]."""
        seen = self._by_object.get(id(p))
        if seen is not None and seen[0] is p:
            return seen[1]
        if p.text is not None:
            key: Any = p.text
        else:
            key = tuple((m.role, _content_text(m.content)) for m in p.messages)
        i = self._prompt_ids.get(key)
        if i is None:
            i = self._prompt_ids[key] = len(self.prompts)
            self.prompts.append([["text", self.text(key)]] if isinstance(key, str)
                                else [[role, self.text(t)] for role, t in key])
        if len(self._by_object) < self.KEPT:  # bounded: prompts stored inline are each their own object
            self._by_object[id(p)] = (p, i)
        return i


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for p in content or []:
        if isinstance(p, dict) and p.get("type") == "text":
            parts.append(str(p.get("text", "")))
        elif isinstance(p, dict):
            parts.append(f"[{p.get('type', 'part')} omitted]")
    return "\n".join(parts)


_GOLD_KEYS = ("gold", "gold_answer", "expected", "reference")


def _as_text(x: Any) -> str | None:
    if x is None:
        return None
    return x if isinstance(x, str) else json.dumps(x, ensure_ascii=False, default=str)


def _gold(detail: dict[str, Any], item: Item | None) -> str | None:
    for k in _GOLD_KEYS:
        if detail.get(k) is not None:
            return _as_text(detail[k])
    return _as_text(item.gold) if item is not None else None


def _short_id(x: Any) -> str | None:
    if isinstance(x, int | str) and not isinstance(x, bool) and 0 < len(str(x)) <= 40:
        return str(x)
    return None


def _group(b: Benchmark | None, key: str, detail: dict[str, Any], item: Item | None) -> str | None:
    """The item's group in the browser (``Benchmark.item_group``), when it is a short id."""
    return None if b is None else _short_id(b.item_group(key, detail, item))


def bench_items(views: list[RunView]) -> list[dict[str, Item]]:
    """The benchmark's items behind each run (gold answers, groups), keyed like ``ScoredRow.item_key``.

    Loaded through the registry, once per (benchmark, subset, mode); a benchmark that cannot load (missing
    dataset path, not installed) just contributes nothing.
    """
    cache: dict[tuple[str, str, str, str], dict[str, Item]] = {}
    out = []
    for v in views:
        name, mode = str(v.run.get("benchmark", "")), str(v.run.get("mode") or "")
        opts = json.dumps((v.run.get("spec") or {}).get("options") or {}, sort_keys=True)
        found: dict[str, Item] = {}
        for sub in sorted({r.subset for r in v.rows}):
            key = (name, sub, mode, opts)
            if key not in cache:
                try:
                    cache[key] = {it.key: it for it in registry.for_run(v.run).load(sub, mode)}
                except Exception:  # noqa: BLE001 - the report must render without the data
                    cache[key] = {}
            found.update(cache[key])
        out.append(found)
    return out


#: a run's answer texts, (item key, sample, prompt, text) in the order stored (``RunStore.answer_texts``): read
#: per run when the views' rows are compact (no texts), so only one run's texts are held at a time
TextsOf = Callable[[RunView], Iterable[tuple[str, int, Prompt, str]]]


def item_data(views: list[RunView], labels: list[str], items: list[dict[str, Item]] | None = None,
              texts: TextsOf | None = None, pack: Callable[[dict[str, Any]], Any] | None = None,
              ) -> tuple[dict[str, Any], list[Any]]:
    """The browser's data: an index of every (run, item, sample), loaded with the page, and one chunk per run
    with the texts (prompts, completions, verdict details), loaded only when an item of that run is opened or
    its texts are searched.

    index item: [run, key, subset, sample, rule, outcome, extracted, gold, turns, output tokens, position]
    (items in natural id order within a run: cipher/2 before cipher/10; position: the item's place in its
    run's chunk). chunk: {"turns": per position, a list of
    [prompt, completion, extracted, outcome, method, detail, finish_reason, error, prompt tok, compl tok]}.
    prompt: a number into the shared data's ``prompts`` (each distinct prompt of the report once), where a
    prompt is [[role, text], ...]; text: a string, or a list of parts (ids into the shared ``strs`` or
    strings) joined by blank lines. The shared data ({"strs", "prompts"}, complete once every run is made)
    are the index's ``shared`` (:func:`build_page` packs them as a chunk of their own, loaded with the first
    run's texts).

    ``texts``: where the prompts and texts come from when the rows are compact (else each turn's own);
    ``pack``: each chunk is handed back as ``pack(chunk)``, made as soon as the run's chunk is complete.
    """
    runs = []
    out = []
    chunks: list[Any] = []
    strs = _Strings()  # shared by the runs: most send the same prompts
    order: dict[str, tuple[Any, ...]] = {}  # natural_key of each distinct item key (the runs share their items)

    def natural(key: str) -> tuple[Any, ...]:
        got = order.get(key)
        if got is None:
            got = order[key] = natural_key(key)
        return got

    for ri, v in enumerate(views):
        per_run: list[Any] = []
        bench = str(v.run.get("benchmark", ""))
        plugin = _benchmark(bench)
        known = items[ri] if items is not None else {}
        runs.append({"id": v.run.get("run_id"), "label": labels[ri], "model": v.run.get("model"),
                     "benchmark": bench, "mode": v.run.get("mode")})
        read: dict[tuple[str, int], list[tuple[Prompt, str]]] | None = None
        if texts is not None:
            read = defaultdict(list)
            for key, sample, prompt, text in texts(v):
                read[(key, sample)].append((prompt, text))
        for r in sorted(v.rows, key=lambda r: (natural(r.item_key), r.sample)):  # cipher/2 before cipher/10
            turns = []
            ctoks: int | None = 0  # None when a turn's count is unknown (shown "-")
            own = None if read is None else read.get((r.item_key, r.sample), [])
            for k, t in enumerate(r.turns):
                vd = t.verdict
                c = t.completion
                if own is None:
                    prompt, text = t.prompt, c.text
                else:
                    prompt, text = own[k] if k < len(own) else (_NO_PROMPT, "")
                usage = getattr(c, "usage", None)
                n = usage.completion_tokens if usage is not None else None  # None: unknown, not 0
                ctoks = None if ctoks is None or n is None else ctoks + n
                turns.append([
                    strs.prompt(prompt), text,  # a completion is its own: nothing to share
                    vd.extracted if vd else None, vd.outcome._value_ if vd else None,  # _value_: no enum property
                    vd.method if vd else None, (vd.detail or None) if vd else None,
                    c.finish_reason, c.error, usage.prompt_tokens if usage is not None else None,
                    usage.completion_tokens if usage is not None else None])
            fv = r.final.verdict
            detail = (fv.detail if fv else None) or {}
            item = known.get(r.item_key)
            outcome = fv.outcome._value_ if fv else ("error" if r.final.completion.error else None)
            out.append([ri, r.item_key, r.subset, r.sample, _group(plugin, r.item_key, detail, item), outcome,
                        fv.extracted if fv else None, _gold(detail, item), len(turns), ctoks, len(per_run)])
            per_run.append(turns)
        chunk = {"turns": per_run}
        chunks.append(chunk if pack is None else pack(chunk))
        del read, chunk, per_run  # one run's texts at a time
    shared = {"strs": strs.items, "prompts": strs.prompts}
    return {"runs": runs, "items": out, "pageSize": PAGE_SIZE, "shared": shared}, chunks


# ---------------------------------------------------------------- page

def build_html(views: list[RunView], title: str = "reasoneval report", load_items: bool = True,
               prices: dict[str, Price] | None = None) -> str:
    """The report as one self-contained string (every item chunk embedded); ``load_items`` reads the
    benchmarks' items for gold answers and item groups."""
    return build_page(views, title, load_items, prices)[0]


def build_page(views: list[RunView], title: str = "reasoneval report", load_items: bool = True,
               prices: dict[str, Price] | None = None, side: str | None = None,
               report: Any = None, texts: TextsOf | None = None, aside: bool = False) -> tuple[str, dict[str, str]]:
    """The page, and its side files (relative name -> text). ``side``: the folder name (beside the page) for
    the item texts when they are more than :data:`item_chunks.EMBED_LIMIT`; None: always embedded.
    ``texts``: the prompts and texts of runs whose rows are compact (:func:`item_data`); ``aside``: the plots
    drawn in a forked process meanwhile (:func:`.plots.make_plots_aside`: for a program that owns its process,
    as the CLI does)."""
    views = list(views)
    labels = run_labels(views)
    css = _asset("report.css")
    js = _asset("report.js")
    plotted = make_plots_aside(views) if aside else (lambda: make_plots(views))  # before any thread starts
    # the texts: fast compression (6 costs 5x the time), each run's chunk packed as soon as it is made, its
    # compression beside the next run's chunk (ic.Packer: two runs' texts held at most)
    with ic.Packer(level=1) as packer:
        index, futures = item_data(views, labels, bench_items(views) if load_items else None, texts, pack=packer)
    packed = packer.results(futures)
    shared = ic.pack(index.pop("shared"), 1)
    plots, plot_notes = plotted()
    files: dict[str, str] = {}
    if side is not None and sum(map(len, packed)) > ic.EMBED_LIMIT:
        index["chunkSrc"] = [f"{side}/run-{i}.js" for i in range(len(packed))]
        index["sharedSrc"] = f"{side}/shared.js"
        files = {f"{side}/run-{i}.js": ic.side_file(i, b) for i, b in enumerate(packed)}
        files[f"{side}/shared.js"] = ic.side_file(ic.SHARED, shared)
        blocks = ""
    else:
        blocks = ic.block(f"chunk-{ic.SHARED}", shared) + "".join(
            ic.block(f"chunk-{i}", b) for i, b in enumerate(packed))
    blocks = ic.block("report-index", ic.pack(index)) + blocks
    # 'strict-dynamic': the page's own script (hash) may load the side files; nothing else can run
    csp = (f"default-src 'none'; script-src {_sha256(js)} 'strict-dynamic'; style-src {_sha256(css)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    n_items = sum(len(v.rows) for v in views)
    benches = sorted({str(v.run.get("benchmark")) for v in views})
    generated = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    leaderboard = (render_report_tables(report) if report is not None
                   else render_leaderboard(views, labels) + render_cross_run_tables(views, prices))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{css}</style>
</head><body>
<header><h1>{esc(title)}</h1>
<p class="sub">{len(views)} run(s) · {n_items} item(s) · benchmarks: {esc(", ".join(benches))} · generated {esc(generated)}
by reasoneval {esc(__version__)}</p>
<nav><a href="#leaderboard">Leaderboard</a><a href="#plots">Plots</a><a href="#items">Items</a><a href="#runs">Runs</a></nav>
</header>
<main>
<section id="leaderboard"><h2>Leaderboard</h2>{leaderboard}</section>
<section id="plots"><h2>Plots</h2>{render_plots(plots, plot_notes)}</section>
<section id="items"><h2>Items</h2>
<noscript><p class="note">The item browser needs JavaScript.</p></noscript>
<div class="controls" id="item-controls">
<label>benchmark <select id="f-bench"><option value="">all</option></select></label>
<label>run <select id="f-run"><option value="">all</option></select></label>
<label>category <select id="f-subset"><option value="">all</option></select></label>
<label>rule <select id="f-rule"><option value="">all</option></select></label>
<label>verdict <select id="f-verdict"><option value="">all</option></select></label>
<label class="grow">search <input id="f-search" type="search" placeholder="text in prompt, completion, answer, key" autocomplete="off"></label>
</div>
<div class="pager"><button id="p-prev" type="button">‹ prev</button><span id="item-count">loading…</span><button id="p-next" type="button">next ›</button></div>
<table class="items"><thead><tr><th>run</th><th>item</th><th>category</th><th>rule</th><th>verdict</th><th>extracted</th><th>gold</th><th>turns</th><th>out tok</th></tr></thead>
<tbody id="item-rows"></tbody></table>
</section>
<section id="runs"><h2>Runs</h2>{render_runs(views, labels)}</section>
</main>
{blocks}
<script>{js}</script>
</body></html>
""", files


def side_folder(path: Path) -> Path:
    """Where the item texts of a large report go: ``<page stem>_items`` beside the page."""
    return path.with_name(f"{path.stem}_items")


def write_html(views: list[RunView], path: Path, prices: dict[str, Price] | None = None,
               final: Path | None = None, report: Any = None, texts: TextsOf | None = None,
               aside: bool = False) -> list[Path]:
    """Write the HTML report of ``views`` to ``path``: one self-contained file, or for item texts over
    :data:`item_chunks.EMBED_LIMIT`, the page plus a folder of text chunks beside ``final`` (the page's final
    name when ``path`` is a temporary file renamed into place later); ``texts``, ``aside``: as in
    :func:`build_page`.
    Returns the side files written."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    folder = side_folder(Path(final) if final is not None else path)
    page, files = build_page(views, prices=prices, side=folder.name, report=report, texts=texts, aside=aside)
    written = []
    for old in [*folder.glob("run-*.js"), *folder.glob(f"{ic.SHARED}.js")]:  # an earlier report's chunks
        old.unlink()
    if not files and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    if files:
        folder.mkdir(exist_ok=True)
        for name, text in files.items():
            target = folder.parent / name
            target.write_text(text, encoding="ascii")
            written.append(target)
    # lone surrogates (broken model output) become \\udXXX escapes instead of failing the write
    path.write_bytes(html_safe(page).encode("utf-8", "backslashreplace"))  # no raw ESC/BEL from stored text
    return written


def _partial(run: dict[str, Any]) -> bool:
    """Whether a run is of some subsets only (a run of the whole set stores ``*``, older ones nothing)."""
    return run.get("subset") not in (None, "", "*")
