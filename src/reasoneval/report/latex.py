"""Tables as LaTeX for a paper (``reasoneval report --latex FILE``).

``report_latex(report)`` gives two texts: a standalone document (``FILE``: ``pdflatex FILE`` compiles it with a
stock TeX Live: ``article``, ``booktabs``, ``longtable``, ``array``, ``float``, ``pdflscape``, ``amssymb``; no
T1 fonts needed) and the same tables alone, ready to ``\\input`` into a paper (``FILE``'s stem + ``-tables.tex``;
its first lines name the packages it needs).

Each table is laid out to fit the page: the font steps down (``\\small`` to ``\\scriptsize``) before text columns
wrap (``p{}`` columns that may break after ``-``, ``/``, ``_`` and ``.``), and a table that still does not fit
is set on a landscape page; a table of more than :data:`LONG` rows is a ``longtable`` (it breaks across pages,
its header repeated). What every row shares (mode, subset) is said in the caption instead of a column; numeric
columns are right-aligned (every number has the same decimals, so the points line up); in a leaderboard the
best value of each column among the complete runs is bold; the published value and Δ of the compared column
are optional (``paper=False`` leaves them out).

Every text (titles, model names, rule titles, notes: user and model text) is escaped: LaTeX's special characters
become the commands that typeset them, accented Latin letters become accent commands, common symbols (○ ● □
■ → ≤ Δ − ...) their math or text symbols, and any other character ``[U+XXXX]``, so nothing in a text is a
command and pdflatex never stops on an unknown character.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..core import number_format
from ..core.benchmark import Table
from ..core.number_format import Missing
from ..core.table import Cell, number_of
from .formats import NOT_IN_PAPER

#: rows above which a table is a ``longtable``
LONG = 40
#: text widths (pt) of the standalone document's a4 page with 2 cm margins, portrait and landscape
TEXTWIDTH = 480.0
LANDWIDTH = 720.0
#: a character's width (pt) at 10 pt, a little above the average (digits are 5 pt, lower case ~4.5 pt)
CHAR = 5.2
TABCOLSEP = 4.0  # set in each table (LaTeX's default is 6 pt): nine columns of numbers fit a portrait page
#: the height (pt) above which a table is a longtable (the a4 page with 2 cm margins is ~730 pt high)
PAGE_HEIGHT = 560.0
SIZES = (("\\small", 0.92), ("\\footnotesize", 0.85), ("\\scriptsize", 0.78))  # small sizes are set wider
MIN_WRAP = 56.0

PACKAGES = ("booktabs", "longtable", "array", "float", "pdflscape", "amssymb")

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")

#: non-ASCII characters pdflatex can set with the stock fonts (rule symbols, arrows, relations, Greek, dashes)
_SYMBOLS: dict[str, str] = {
    "○": r"\ensuremath{\circ}", "◯": r"\ensuremath{\bigcirc}", "●": r"\ensuremath{\bullet}",
    "•": r"\textbullet{}", "∙": r"\ensuremath{\bullet}", "·": r"\textperiodcentered{}",
    "□": r"\ensuremath{\square}", "■": r"\ensuremath{\blacksquare}", "▢": r"\ensuremath{\square}",
    "△": r"\ensuremath{\triangle}", "▲": r"\ensuremath{\blacktriangle}", "▽": r"\ensuremath{\triangledown}",
    "▼": r"\ensuremath{\blacktriangledown}", "◇": r"\ensuremath{\diamond}", "◆": r"\ensuremath{\blacklozenge}",
    "◊": r"\ensuremath{\lozenge}", "★": r"\ensuremath{\bigstar}", "☆": r"\ensuremath{\star}",
    "♠": r"\ensuremath{\spadesuit}", "♥": r"\ensuremath{\heartsuit}", "♦": r"\ensuremath{\diamondsuit}",
    "♣": r"\ensuremath{\clubsuit}", "♡": r"\ensuremath{\heartsuit}", "♢": r"\ensuremath{\diamondsuit}",
    "→": r"\ensuremath{\rightarrow}", "←": r"\ensuremath{\leftarrow}", "↑": r"\ensuremath{\uparrow}",
    "↓": r"\ensuremath{\downarrow}", "↔": r"\ensuremath{\leftrightarrow}", "⇒": r"\ensuremath{\Rightarrow}",
    "⇐": r"\ensuremath{\Leftarrow}", "⇔": r"\ensuremath{\Leftrightarrow}", "↦": r"\ensuremath{\mapsto}",
    "≤": r"\ensuremath{\leq}", "≥": r"\ensuremath{\geq}", "≠": r"\ensuremath{\neq}", "≈": r"\ensuremath{\approx}",
    "≡": r"\ensuremath{\equiv}", "±": r"\ensuremath{\pm}", "×": r"\ensuremath{\times}", "÷": r"\ensuremath{\div}",
    "−": r"\ensuremath{-}", "∓": r"\ensuremath{\mp}", "√": r"\ensuremath{\surd}", "∞": r"\ensuremath{\infty}",
    "∧": r"\ensuremath{\wedge}", "∨": r"\ensuremath{\vee}", "¬": r"\ensuremath{\neg}", "∀": r"\ensuremath{\forall}",
    "∃": r"\ensuremath{\exists}", "∈": r"\ensuremath{\in}", "∉": r"\ensuremath{\notin}",
    "⊂": r"\ensuremath{\subset}", "⊆": r"\ensuremath{\subseteq}", "⊃": r"\ensuremath{\supset}",
    "⊇": r"\ensuremath{\supseteq}", "∪": r"\ensuremath{\cup}", "∩": r"\ensuremath{\cap}",
    "∅": r"\ensuremath{\emptyset}", "⊕": r"\ensuremath{\oplus}", "⊗": r"\ensuremath{\otimes}",
    "⊥": r"\ensuremath{\perp}", "⊤": r"\ensuremath{\top}", "⊢": r"\ensuremath{\vdash}", "⊨": r"\ensuremath{\models}",
    "∑": r"\ensuremath{\sum}", "∏": r"\ensuremath{\prod}", "∫": r"\ensuremath{\int}", "∂": r"\ensuremath{\partial}",
    "∇": r"\ensuremath{\nabla}", "∘": r"\ensuremath{\circ}", "°": r"\ensuremath{^\circ}", "∼": r"\ensuremath{\sim}",
    "≅": r"\ensuremath{\cong}", "∝": r"\ensuremath{\propto}", "∣": r"\ensuremath{\mid}", "∥": r"\ensuremath{\parallel}",
    "⌊": r"\ensuremath{\lfloor}", "⌋": r"\ensuremath{\rfloor}", "⌈": r"\ensuremath{\lceil}", "⌉": r"\ensuremath{\rceil}",
    "⟨": r"\ensuremath{\langle}", "⟩": r"\ensuremath{\rangle}", "…": r"\ldots{}", "–": "--", "—": "---",
    "‘": "`", "’": "'", "“": "``", "”": "''", "„": ",,", "«": r"\ensuremath{\ll}", "»": r"\ensuremath{\gg}",
    "§": r"\S{}", "¶": r"\P{}", "†": r"\dag{}", "‡": r"\ddag{}", "©": r"\copyright{}", "\u00a0": "~",
    "£": r"\pounds{}", "€": "EUR", "¢": "c", "¥": "JPY", "¹": r"\ensuremath{^1}", "²": r"\ensuremath{^2}",
    "³": r"\ensuremath{^3}", "½": r"\ensuremath{\frac12}", "¼": r"\ensuremath{\frac14}", "¾": r"\ensuremath{\frac34}",
    "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}",
    "å": r"\aa{}", "Å": r"\AA{}", "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}", "¿": r"?`", "¡": r"!`",
    "◎": r"\ensuremath{\circledcirc}", "⊙": r"\ensuremath{\odot}", "◉": r"\ensuremath{\odot}",
    "✓": r"\ensuremath{\checkmark}", "✔": r"\ensuremath{\checkmark}", "✗": "x", "✘": "x",
}
_GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau " \
         "upsilon phi chi psi omega".split()
for _i, _name in enumerate(_GREEK):
    _lower = chr(0x3B1 + _i)
    _SYMBOLS.setdefault(_lower, "o" if _name == "omicron" else rf"\ensuremath{{\{'varsigma' if _i == 17 else _name}}}")
    _upper = chr(0x391 + _i)
    if _i != 17:
        _cap = _name.capitalize()
        _SYMBOLS.setdefault(_upper, rf"\ensuremath{{\{_cap}}}" if _cap in (
            "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega")
            else unicodedata.normalize("NFKD", _cap[0]) if _cap[0] in "ABEZHIKMNOPTX" else _name)
_SYMBOLS["Δ"] = r"\ensuremath{\Delta}"
_SYMBOLS["µ"] = r"\ensuremath{\mu}"

#: combining accents -> LaTeX accent commands (OT1 builds accented letters from the base letter)
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=",
            "\u0307": ".", "\u0327": "c", "\u030c": "v", "\u0306": "u", "\u030a": "r", "\u030b": "H", "\u0328": "k"}
_CACHE: dict[str, str] = {}


def _char(ch: str) -> str:
    got = _CACHE.get(ch)
    if got is not None:
        return got
    if ch in _SYMBOLS:
        out = _SYMBOLS[ch]
    else:
        d = unicodedata.normalize("NFD", ch)
        base, marks = d[:1], d[1:]
        if base.isascii() and base.isalpha() and marks and all(m in _ACCENTS for m in marks):
            out = base if base not in "ij" else "\\" + base
            for m in marks:
                out = f"\\{_ACCENTS[m]}{{{out}}}"
        else:
            compat = unicodedata.normalize("NFKC", ch)  # fullwidth forms (￡ -> £), ligatures, ...
            if compat != ch and compat and all(c.isascii() or c in _SYMBOLS for c in compat):
                out = "".join(_SPECIAL.get(c) or (c if c.isascii() else _SYMBOLS[c]) for c in compat)
            else:
                out = f"[U+{ord(ch):04X}]"
    _CACHE[ch] = out
    return out


_SPECIAL_RE = re.compile("[" + re.escape("".join(_SPECIAL)) + "]|[^\\x00-\\x7f]")


def tex(x: Any) -> str:
    """Text as LaTeX source that typesets as the text itself (control codes and line breaks become spaces;
    a character the stock fonts lack becomes ``[U+XXXX]``)."""
    s = _CONTROL.sub(" ", _cell(x))
    return _SPECIAL_RE.sub(lambda m: _SPECIAL.get(m.group(0)) or _char(m.group(0)), s)


def _cell(x: Any) -> str:
    return number_format.cell(x)


def _numeric(x: Any) -> bool:
    """A number (typed: a Cell, an int or float, a p-value); text is never read as one."""
    return number_of(x) is not None


def _label(title: str, taken: set[str]) -> str:
    base = "tab:" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "table")
    label, n = base, 2
    while label in taken:
        label, n = f"{base}-{n}", n + 1
    taken.add(label)
    return label


def _absent(x: Any) -> bool:
    return x is None or (isinstance(x, str) and x.strip() in ("", "-"))


def _breakable(s: str) -> str:
    """Escaped text that may break after ``-``, ``/``, ``_`` and ``.`` (in a wrapped column)."""
    return re.sub(r"(-|/|\\_|\.)(?=\S)", r"\1\\hspace{0pt}", s)


def _longest_piece(s: str) -> int:
    return max((len(p) for p in re.split(r"[\s\-/_.]+", s)), default=0)


def _width(chars: int, scale: float) -> float:
    return chars * CHAR * scale + 2 * TABCOLSEP


class _Layout:
    """Font size, column specs and page orientation of one table."""

    def __init__(self, size: str, specs: list[str], wrapped: set[int], landscape: bool) -> None:
        self.size, self.specs, self.wrapped, self.landscape = size, specs, wrapped, landscape


def _layout(texts: list[list[str]], header: list[str], numeric: list[bool]) -> _Layout:
    cols = len(header)
    natural = [max([len(header[j]), *(len(r[j]) for r in texts)]) for j in range(cols)]
    pieces = [max([_longest_piece(header[j]), *(_longest_piece(r[j]) for r in texts)]) for j in range(cols)]
    base = ["r" if numeric[j] else "l" for j in range(cols)]
    for width, land in ((TEXTWIDTH, False), (LANDWIDTH, True)):
        for size, scale in SIZES:
            if sum(_width(n, scale) for n in natural) <= width:
                return _Layout(size, base, set(), land)
        # wrap the text columns (widest first) until the table fits at the smallest size
        size, scale = SIZES[-1]
        fixed = sum(_width(natural[j], scale) for j in range(cols) if numeric[j])
        text_cols = [j for j in range(cols) if not numeric[j]]
        room = width - fixed
        floor = {j: max(_width(pieces[j], scale), min(_width(natural[j], scale), MIN_WRAP)) for j in text_cols}
        if sum(floor.values()) > room:
            continue
        widths = {j: _width(natural[j], scale) for j in text_cols}
        while (excess := sum(widths.values()) - room) > 1e-6:
            # the widest column that can give gives first, down to the next widest (titles and tags before names)
            movable = [k for k in text_cols if widths[k] > floor[k] + 1e-6]
            if not movable:
                break
            j = max(movable, key=lambda k: widths[k])
            others = [widths[k] for k in movable if k != j]
            widths[j] = max(floor[j], widths[j] - excess, min(max(others, default=0.0), widths[j] - 1.0))
        specs = list(base)
        wrapped = set()
        for j in text_cols:
            if widths[j] < _width(natural[j], scale) - 1e-6:
                specs[j] = f">{{\\raggedright\\arraybackslash}}p{{{widths[j] - 2 * TABCOLSEP:.0f}pt}}"
                wrapped.add(j)
        return _Layout(size, specs, wrapped, land)
    # nothing fits: the smallest font, landscape, every text column wrapped at its longest word
    size, scale = SIZES[-1]
    specs = [base[j] if numeric[j] else
             f">{{\\raggedright\\arraybackslash}}p{{{max(_width(pieces[j], scale), MIN_WRAP) - 2 * TABCOLSEP:.0f}pt}}"
             for j in range(cols)]
    return _Layout(size, specs, {j for j in range(cols) if not numeric[j]}, True)


_NA = str.__new__(Missing, "n/a")  # shown "n/a"; still a Missing (right-aligned with the numbers)
_NA.reason = ""


def _cell_tex(x: Any, bold: bool) -> str:
    if bold and isinstance(x, Cell) and x.secondary is not None:
        main = number_format.cell(x.value)
        return f"\\textbf{{{tex(main)}}}{tex(str(x)[len(main):])}"
    return f"\\textbf{{{tex(x)}}}" if bold else tex(x)


def table_tex(t: Table, label: str, caption_extra: str = "", best: dict[int, set[int]] | None = None,
              float_spec: str = "") -> str:
    """One table; columns no row has a value in ('-' or empty: the trick protocol's four categories it never
    ran) are left out; ``best``: column -> rows whose value is bold."""
    keep = [i for i in range(len(t.columns))
            if i == 0 or not t.rows or any(i < len(r) and not _absent(r[i]) for r in t.rows)]
    best = {keep.index(j): rows for j, rows in (best or {}).items() if j in keep}
    t = Table(t.title, [t.columns[i] for i in keep], [[r[i] if i < len(r) else None for i in keep] for r in t.rows],
              t.notes, t.kind)
    cols = len(t.columns)
    numeric = []
    for i in range(cols):
        vals = [r[i] for r in t.rows if not _absent(r[i])]
        # numbers, and in a column of numbers a missing value (n/a, with why) or "not in paper": right-aligned
        numeric.append(i > 0 and any(_numeric(v) for v in vals)
                       and all(_numeric(v) or isinstance(v, Missing) or v == NOT_IN_PAPER for v in vals))
    # a missing value is "n/a" in its cell, the reasons in the notes (a reason in a cell widens its whole column)
    reasons: dict[str, list[str]] = {}
    for r in t.rows:
        for i in range(1, cols):
            if isinstance(r[i], Missing):
                reasons.setdefault(r[i].reason, []).append(f"{r[0]}: {t.columns[i]}")
    if reasons:
        t = Table(t.title, t.columns, [[_NA if isinstance(x, Missing) else x for x in r] for r in t.rows],
                  [*t.notes, "n/a: " + "; ".join(f"{why} ({', '.join(who)})" for why, who in reasons.items()) + "."],
                  t.kind)
    header = [tex(c) for c in t.columns]
    texts = [[_cell(r[i]) for i in range(cols)] for r in t.rows]
    lay = _layout(texts, [str(c) for c in t.columns], numeric)
    body = []
    for ri, r in enumerate(t.rows):
        cells = []
        for i in range(cols):
            s = _cell_tex(r[i], ri in best.get(i, set()))
            cells.append(_breakable(s) if i in lay.wrapped else s)
        body.append(" & ".join(cells) + r" \\")
    head = " & ".join(_breakable(h) if i in lay.wrapped else h for i, h in enumerate(header)) + r" \\"
    caption = tex(t.title) + (f" ({tex(caption_extra)})" if caption_extra else "")
    notes = " ".join(tex(n) for n in t.notes)
    spec = "".join(lay.specs)
    scale = dict(SIZES)[lay.size]
    line = (LANDWIDTH if lay.landscape else TEXTWIDTH) / (CHAR * 0.8)
    height = (len(t.rows) + 4) * 12 * scale + sum(len(n) // int(line) + 1 for n in t.notes) * 10
    if len(t.rows) > LONG or height > PAGE_HEIGHT:  # a float taller than the page cannot be set
        lines = [r"\begingroup", lay.size, rf"\setlength{{\tabcolsep}}{{{TABCOLSEP:g}pt}}",
                 r"\setlength{\LTcapwidth}{\linewidth}",
                 rf"\begin{{longtable}}{{{spec}}}", rf"\caption{{{caption}}}\label{{{label}}}\\", r"\toprule", head,
                 r"\midrule", r"\endfirsthead", rf"\multicolumn{{{cols}}}{{l}}{{\emph{{{tex(t.title)} (continued)}}}}\\",
                 r"\toprule", head, r"\midrule", r"\endhead", r"\bottomrule", r"\endfoot", *body, r"\end{longtable}"]
        if notes:
            lines.append(r"\par{\footnotesize " + notes + r"\par}")
        lines.append(r"\endgroup")
    else:
        lines = [rf"\begin{{table}}{float_spec}", r"\centering", lay.size, rf"\setlength{{\tabcolsep}}{{{TABCOLSEP:g}pt}}",
                 rf"\caption{{{caption}}}",
                 rf"\label{{{label}}}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule", head, r"\midrule", *body,
                 r"\bottomrule", r"\end{tabular}"]
        if notes:
            lines.append(r"\par\smallskip{\footnotesize " + notes + r"\par}")
        lines.append(r"\end{table}")
    if lay.landscape:
        lines = [r"\begin{landscape}", *lines, r"\end{landscape}"]
    return "\n".join(lines)


def to_latex(tables: list[Table]) -> str:
    """Tables without a report (one ``table`` or ``longtable`` each), ready to ``\\input`` into a paper."""
    taken: set[str] = set()
    out = [_needs(), ""]
    for t in tables:
        out.append(table_tex(t, _label(str(t.title), taken)))
        out.append("")
    return "\n".join(out)


def _needs() -> str:
    return ("% generated by reasoneval report --latex; needs " + ", ".join(f"\\usepackage{{{p}}}" for p in PACKAGES))


def report_latex(rep: Any, paper: bool = True) -> tuple[str, str]:
    """(standalone document, the tables alone for ``\\input``) of a :class:`~.assemble.Report`."""
    from .assemble import best_rows, paper_column, value_columns
    from .formats import shown

    taken: set[str] = set()
    parts = []
    for rt in rep.tables:
        t = shown(rt, paper)
        # what every row shares is in the caption (the shown table's first note says it too)
        notes = [n for n in t.notes if not n.startswith("All rows: ")]
        extra = ", ".join(f"{k} {v}" for k, v in rt.constants.items())
        best: dict[int, set[int]] = {}
        if rt.ranked:
            at = paper_column(rt) if paper else None  # shown() puts paper and Δ after this column
            for j in value_columns(rt):
                best[j if at is None or j <= at else j + 2] = best_rows(rt, j)
        parts.append(table_tex(Table(t.title, t.columns, t.rows, notes, t.kind), _label(str(t.title), taken),
                               extra, best))
    body = "\n\n".join(parts)
    tables = _needs() + "\n\n" + body + "\n"
    doc = "\n".join([
        "% generated by reasoneval report --latex: compile with pdflatex",
        r"\documentclass[10pt]{article}",
        r"\usepackage[a4paper,margin=2cm]{geometry}",
        *(f"\\usepackage{{{p}}}" for p in PACKAGES),
        r"\floatplacement{table}{H}",
        r"\setlength{\LTcapwidth}{\textwidth}",
        r"\begin{document}",
        "", body, "",
        r"\end{document}", ""])
    return doc, tables


__all__ = ["LONG", "report_latex", "table_tex", "tex", "to_latex"]
