"""One item across several runs, side by side, with the differences marked (``reasoneval show ITEM RUN RUN...``).

The first run is the reference: every other run's verdict and extracted answer are marked where they differ
from it, and its final completion is diffed word by word against the reference's (words it adds are marked;
``difflib`` on whitespace-separated tokens). Output: the terminal (control codes stripped) or a self-contained
HTML page (every text escaped, no script).
"""

from __future__ import annotations

import difflib
import html
import json
import re
import sqlite3
from dataclasses import dataclass

from ..core.safetext import html_safe, shown
from ..core.values import Prompt
from ..store.sqlite import RunStore
from .collect import resolve_run, scored_rows
from .labels import display_name

#: characters of the question shown on the terminal (the HTML page shows all of it)
QUESTION_CHARS = 1500
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(s: object) -> str:
    """Text for a terminal: control characters (ESC sequences, bells, carriage returns) and bidirectional
    overrides written as visible escapes (``\\x1b``; line breaks and tabs kept: ``core/safetext.py: shown``)."""
    return shown(s, keep_newlines=True)


@dataclass
class Side:
    run_id: str
    model: str
    sample: int
    outcome: str | None
    extracted: str | None
    text: str
    error: str | None
    mode: str = ""
    gold: str | None = None
    question: str = ""  # the first turn's prompt (its last user message), as the model read it


_GOLD_KEYS = ("gold", "gold_answer", "expected", "reference")


def _prompt_text(p: Prompt) -> str:
    if p.text is not None:
        return p.text
    users = [m.content for m in p.messages if m.role == "user"]
    last = users[-1] if users else ""
    return last if isinstance(last, str) else " ".join(str(x.get("text", "")) for x in last if isinstance(x, dict))


def _gold_of(store: RunStore, run: dict[str, object], item_key: str, detail: dict[str, object]) -> str | None:
    """The gold answer: the verdict's, else the one an imported run stored with its items."""
    for k in _GOLD_KEYS:
        if detail.get(k) is not None:
            g = detail[k]
            return g if isinstance(g, str) else json.dumps(g, ensure_ascii=False)
    from ..store.imported import stored_items

    try:
        kept = stored_items(store, str(run["run_id"])) or []
    except (sqlite3.Error, ValueError, KeyError, TypeError):  # a store without (readable) items: gold unknown
        return None
    for it in kept:
        if it.key == item_key:
            return it.gold if isinstance(it.gold, str) else json.dumps(it.gold, ensure_ascii=False)
    return None


def item_sides(store: RunStore, item_key: str, refs: list[str]) -> list[Side]:
    """Every (run, sample) answer to ``item_key``, in the order the runs are given, with the run's mode, the
    gold answer and the question as prompted. ``KeyError`` (one line) for a run that does not resolve or holds no
    such item."""
    out: list[Side] = []
    for ref in refs:
        run = resolve_run(store, ref)
        rows = [r for r in scored_rows(store, run["run_id"], prompts=True) if r.item_key == item_key]
        if not rows:
            raise KeyError(f"run {run['run_id']} has no item {item_key!r}")
        for r in sorted(rows, key=lambda r: r.sample):
            v, c = r.final.verdict, r.final.completion
            out.append(Side(run["run_id"], display_name(run), r.sample, v.outcome.value if v else None,
                            v.extracted if v else None, c.text, c.error, str(run.get("mode") or ""),
                            _gold_of(store, run, item_key, (v.detail or {}) if v else {}),
                            _prompt_text(r.turns[0].prompt)))
    return out


def word_diff(ref: str, other: str) -> list[tuple[bool, str]]:
    """``other`` as (changed, piece) pieces: changed pieces are words the reference does not have there."""
    a, b = re.split(r"(\s+)", ref), re.split(r"(\s+)", other)
    out: list[tuple[bool, str]] = []
    for op, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if j2 > j1:
            piece = "".join(b[j1:j2])
            changed = op != "equal" and bool(piece.strip())
            if out and out[-1][0] == changed:
                out[-1] = (changed, out[-1][1] + piece)
            elif changed and len(out) >= 2 and out[-2][0] and not out[-1][1].strip():
                # changed words separated by unchanged spaces only: one marked stretch
                out[-2:] = [(True, out[-2][1] + out[-1][1] + piece)]
            else:
                out.append((changed, piece))
    return out


def _name(s: Side) -> str:
    return f"{s.model} [{s.run_id}]" + (f" sample {s.sample}" if s.sample else "")


def to_text(item_key: str, sides: list[Side], color: bool = False) -> str:
    """Plain text: a header per answer, ``≠`` where the verdict or extracted answer differs from the first,
    and changed words wrapped in ``[+ ... +]`` (or shown reversed when ``color``)."""
    ref = sides[0]
    lines = [f"item {plain(item_key)}: {len(sides)} answer(s); reference: {plain(_name(ref))}"]
    golds = {s.gold for s in sides}
    if len(golds) == 1:
        lines.append(f"gold: {plain(ref.gold) if ref.gold is not None else '(unknown)'}")
    if ref.question:
        q = ref.question.strip()
        # the end of the prompt: rules and instructions come first, the question itself last
        lines += ["question (as prompted" + (f", its last {QUESTION_CHARS} of {len(q)} characters"
                                            if len(q) > QUESTION_CHARS else "") + "):",
                  plain(("..." if len(q) > QUESTION_CHARS else "") + q[-QUESTION_CHARS:])]
    for k, s in enumerate(sides):
        mark = "" if k == 0 or (s.outcome, s.extracted) == (ref.outcome, ref.extracted) else "≠ "
        lines.append("")
        lines.append(f"== {mark}{plain(_name(s))}" + (f" ({plain(s.mode)})" if s.mode else "")
                     + f": {s.outcome or 'unscored'} · extracted "
                     f"{plain(s.extracted) if s.extracted is not None else '(none)'}"
                     + (f" · gold {plain(s.gold)}" if len(golds) > 1 else ""))
        if s.error:
            lines.append(f"error: {plain(s.error)}")
        if k == 0:
            lines.append(plain(s.text))
            continue
        parts = []
        for changed, piece in word_diff(ref.text, s.text):
            p = plain(piece)
            parts.append((f"\x1b[7m{p}\x1b[0m" if color else f"[+{p}+]") if changed else p)
        lines.append("".join(parts))
    return "\n".join(lines) + "\n"


_CSS = ("body{font:14px system-ui,sans-serif;margin:1em}.cols{display:grid;gap:12px;"
        "grid-template-columns:repeat(auto-fit,minmax(320px,1fr))}.side{border:1px solid #ccc;padding:8px}"
        "pre{white-space:pre-wrap;word-break:break-word}ins{background:#fde68a;text-decoration:none}"
        ".diff{color:#b91c1c;font-weight:bold}")


def to_html(item_key: str, sides: list[Side]) -> str:
    """A page of one column per answer; differing verdicts/answers in red, added words highlighted."""
    e = html.escape
    ref = sides[0]
    cols = []
    for k, s in enumerate(sides):
        differs = k > 0 and (s.outcome, s.extracted) != (ref.outcome, ref.extracted)
        body = (e(s.text) if k == 0 else
                "".join(f"<ins>{e(p)}</ins>" if ch else e(p) for ch, p in word_diff(ref.text, s.text)))
        cols.append(f'<div class="side"><h3>{e(_name(s))}</h3><p>mode {e(s.mode or "-")} · gold '
                    f"<code>{e(s.gold) if s.gold is not None else '(unknown)'}</code></p>"
                    f'<p class="{"diff" if differs else ""}">'
                    f"{e(s.outcome or 'unscored')} · extracted "
                    f"<code>{e(s.extracted) if s.extracted is not None else '(none)'}</code>"
                    f"{' ≠ reference' if differs else ''}</p>"
                    + (f"<p>error: {e(s.error)}</p>" if s.error else "") + f"<pre>{body}</pre></div>")
    return html_safe(  # no raw ESC/BEL from stored text
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{e(item_key)}</title><style>{_CSS}</style></head><body><h2>item {e(item_key)}</h2>"
        f"<p>reference: {e(_name(ref))}; highlighted words differ from it</p>"
        + (f"<details><summary>question (as prompted)</summary><pre>{e(ref.question)}</pre></details>"
           if ref.question else "") +
        f'<div class="cols">{"".join(cols)}</div></body></html>\n')
