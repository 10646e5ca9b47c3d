"""A small parser for the Python/JSON list literals models write after ``Next state:`` / ``Solution:``.

Accepts nested lists (``[...]``; ``(...)`` tuples read as lists), integers, decimals, quoted strings ('...'
or "..." with backslash escapes) and ``None``/``True``/``False``/``null``/``true``/``false``. Nothing is ever
passed to ``eval`` or ``ast``; depth and size are bounded.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 8
MAX_ITEMS = 10_000
_NUM = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WORDS = {"None": None, "null": None, "True": True, "true": True, "False": False, "false": False}


class LiteralError(ValueError):
    pass


def parse_literal(text: str, pos: int = 0) -> tuple[Any, int]:
    """Parse one literal starting at ``text[pos]`` (after optional spaces); returns (value, end)."""
    count = [0]

    def ws(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        return i

    def value(i: int, depth: int) -> tuple[Any, int]:
        i = ws(i)
        if i >= len(text):
            raise LiteralError("unexpected end of text")
        count[0] += 1
        if count[0] > MAX_ITEMS:
            raise LiteralError("literal too large")
        ch = text[i]
        if ch in "[(":
            if depth >= MAX_DEPTH:
                raise LiteralError("literal nested too deeply")
            close = "]" if ch == "[" else ")"
            items: list[Any] = []
            i = ws(i + 1)
            if i < len(text) and text[i] == close:
                return items, i + 1
            while True:
                item, i = value(i, depth + 1)
                items.append(item)
                i = ws(i)
                if i < len(text) and text[i] == ",":
                    i = ws(i + 1)
                    if i < len(text) and text[i] == close:  # trailing comma
                        return items, i + 1
                    continue
                if i < len(text) and text[i] == close:
                    return items, i + 1
                raise LiteralError(f"expected ',' or {close!r} at {i}")
        if ch in "'\"":
            out = []
            j = i + 1
            while j < len(text) and text[j] != ch:
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                out.append(text[j])
                j += 1
            if j >= len(text):
                raise LiteralError("unterminated string")
            return "".join(out), j + 1
        m = _NUM.match(text, i)
        if m:
            tok = m.group()
            return (float(tok) if any(c in tok for c in ".eE") else int(tok)), m.end()
        for word, val in _WORDS.items():
            if text.startswith(word, i):
                return val, i + len(word)
        raise LiteralError(f"unexpected {ch!r} at {i}")

    return value(pos, 0)


def first_list(text: str, max_tries: int = 20) -> Any:
    """The first ``[...]`` in ``text`` that parses as a complete list literal."""
    start = 0
    for _ in range(max_tries):
        i = text.find("[", start)
        if i < 0:
            break
        try:
            val, _end = parse_literal(text, i)
            return val
        except LiteralError:
            start = i + 1
    raise LiteralError("no list literal found")
