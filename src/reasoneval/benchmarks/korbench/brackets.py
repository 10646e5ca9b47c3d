r"""Answer extraction and cleaning, as the KOR-Bench reference evaluator does it (spec §5.2).

``extract(text, level)``: the first ``[[...]]`` match, else the first ``$\boxed{...}$``, else the first
``[...]``; stripped; then cleaned per ``level``: ``basic`` / ``clean`` / ``logic`` return ``"[[s]]"``, ``math``
returns ``clean_latex(s)`` unwrapped; ``"NULL"`` when nothing matches. ``inner(text)``: the first
``[[...]]`` group, unstripped, else ``"NULL"``.

``policy="last"`` (corrected mode) takes the last match of the first pattern that matches instead.
All searches are linear-time: a regex search is only started where a closing delimiter is known to exist,
so a hostile completion made of millions of ``[[`` cannot trigger quadratic backtracking.
"""

from __future__ import annotations

import re
from typing import Literal

Policy = Literal["first", "last"]
NULL = "NULL"

_DOUBLE = re.compile(r"\[\[\s*(.*?)\s*\]\]", re.DOTALL)
_BOXED = re.compile(r"\$\\boxed\{(.*?)\}\$", re.DOTALL)
_SINGLE = re.compile(r"\[\s*(.*?)\s*\]", re.DOTALL)
_INNER = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
_PATTERNS = ((_DOUBLE, "[[", "]]"), (_BOXED, "$\\boxed{", "}$"), (_SINGLE, "[", "]"))

_LATEX_DELIMS = re.compile(r"\\[()\[\]]")
_LATEX_SIZING = re.compile(r"\\(?:left|right|displaystyle)")


def _find(rx: re.Pattern[str], text: str, opener: str, closer: str, policy: Policy) -> str | None:
    # A match can only start at an opener and exists there iff a closer follows it; starting the regex at the
    # first opener (and, for "last", ending it at the last closer) keeps every search linear.
    start = text.find(opener)
    if start < 0:
        return None
    if policy == "first":
        if text.find(closer, start + len(opener)) < 0:
            return None
        m = rx.search(text, start)
        return m.group(1) if m else None
    end = text.rfind(closer)
    if end < start + len(opener):
        return None
    last = None
    for m in rx.finditer(text, start, end + len(closer)):
        last = m.group(1)
    return last


def first_match(text: str, policy: Policy = "first") -> str | None:
    """The raw group of the bracket pattern cascade (double, boxed, single), or None."""
    for rx, opener, closer in _PATTERNS:
        m = _find(rx, text, opener, closer, policy)
        if m is not None:
            return m
    return None


def _drop_text_groups(s: str) -> str:
    r"""Linear-time ``re.sub(r"\\text\{.*?\}", "", s)`` (``.`` stops at newlines, as in the regex).

    The regex is quadratic on many ``\text{`` with no closing brace; this scan is not.
    """
    out: list[str] = []
    pos = 0
    while True:
        i = s.find("\\text{", pos)
        if i < 0:
            break
        j = s.find("}", i + 6)
        if j < 0:  # no closing brace anywhere after: no later match either
            break
        nl = s.find("\n", i + 6, j)
        if nl >= 0:  # every candidate before the newline would have to cross it
            out.append(s[pos : nl + 1])
            pos = nl + 1
            continue
        out.append(s[pos:i])
        pos = j + 1
    out.append(s[pos:])
    return "".join(out)


def clean_latex(s: str) -> str:
    if "=" in s:
        s = s.rsplit("=", 1)[1]
    s = _LATEX_DELIMS.sub("", s)
    s = _drop_text_groups(s)
    s = _LATEX_SIZING.sub("", s)
    return s.replace("\\\\", "\\")


def clean(s: str, level: str) -> str:
    if level == "clean":
        return "[[" + s.replace('"', "").replace("\n", "").replace(" ", "").replace("[", "").replace("]", "") + "]]"
    if level == "logic":
        return "[[" + s.replace('"', "").replace("\n", "").replace(" ", "").replace(".", "") + "]]"
    if level == "math":
        return clean_latex(s.replace('"', "").replace("\n", "").replace("[", "").replace("]", "").replace("$", ""))
    if level == "basic":
        return "[[" + s + "]]"
    raise ValueError(f"unknown clean level {level!r}")


def extract(text: object, level: str = "basic", policy: Policy = "first") -> str:
    """Reference ``extract_text_from_brackets``; non-strings (API error records) give ``"NULL"``."""
    if not isinstance(text, str):
        return NULL
    m = first_match(text, policy)
    if m is None:
        return NULL
    return clean(m.strip(), level)


def inner(text: object, policy: Policy = "first") -> str:
    """Reference ``extract_inner_text_from_brackets``: the ``[[...]]`` group, not stripped."""
    if not isinstance(text, str):
        return NULL
    m = _find(_INNER, text, "[[", "]]", policy)
    return NULL if m is None else m
