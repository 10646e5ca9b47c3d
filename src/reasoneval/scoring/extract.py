"""Answer extraction shared by all benchmarks.

Every function here is linear-time on its input (no nested quantifiers on unbounded text), so a hostile
5 MB completion costs milliseconds, not minutes.
"""

from __future__ import annotations

import re
from typing import Literal

from ..core.response import strip_think

__all__ = ["strip_think", "clip", "double_brackets", "boxed", "boxed_all", "boxed_spans", "choice_letter",
           "answer_line", "findall_delimited", "lone_boxed_letter"]  # strip_think lives in core.response (the one module that knows <think>)

Policy = Literal["first", "last"]

# the letter may be wrapped: **D**, (D), $D$, \boxed{D}, \text{D}; it must not start a word ("All other ...")
_LETTER_WRAP = r"\s*+\**+\s*+(?:\$\s*+)?(?:\\(?:boxed|text|textbf|mathrm)\s*+\{\s*+)?[\(\[（]?\s*+"
_ANSWER_EN_RE = re.compile(r"ANSWER\s*+\**+\s*+[:：]" + _LETTER_WRAP + r"([A-Za-z])(?![A-Za-z0-9_])")
_ANSWER_ZH_RE = re.compile(r"答案\s*+(?:(?:是|为)\s*+[:：]?|[:：])" + _LETTER_WRAP
                           + r"(?:选项\s*+)?([A-Za-z])(?![A-Za-z0-9_])")
_ANSWER_ANY_RE = re.compile(r"(?:ANSWER|Answer|answer)\s*[:：]\s*([^\n]+)")
MAX_SCAN = 2_000_000  # characters of a completion that extraction looks at (head and tail kept)


def clip(text: str, limit: int = MAX_SCAN) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + "\n" + text[-half:]


def _pick(matches: list[str], policy: Policy) -> str | None:
    if not matches:
        return None
    return matches[0] if policy == "first" else matches[-1]


def findall_delimited(text: str, open_: str, close: str, strip_ws: bool = True) -> list[str]:
    r"""Linear-time equivalent of ``re.findall(open + r'\s*(.*?)\s*' + close, text, re.DOTALL)``.

    (Without ``strip_ws``: of ``open + '(.*?)' + close``.) The regex form is quadratic on an opening
    delimiter that is never closed ("[[[[[[..."); this scan never looks at a character twice per match.
    ``open_`` and ``close`` are literal strings.
    """
    out: list[str] = []
    pos, n = 0, len(text)
    while True:
        i = text.find(open_, pos)
        if i < 0:
            return out
        s = i + len(open_)
        if strip_ws:
            while s < n and text[s].isspace():
                s += 1
        q = text.find(close, s)
        if q < 0:  # no closing delimiter after this opening: none after any later opening either
            return out
        e = q
        if strip_ws:
            while e > s and text[e - 1].isspace():
                e -= 1
        out.append(text[s:e])
        pos = q + len(close)


def double_brackets(text: str, policy: Policy = "first") -> str | None:
    r"""Content of ``[[...]]`` (same matches as the reference evaluator's regex ``\[\[\s*(.*?)\s*\]\]``)."""
    return _pick(findall_delimited(clip(text), "[[", "]]"), policy)


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    r"""Every ``\boxed{...}`` / ``\fbox{...}`` as ``(start, end, content)`` in ``text`` (nested braces balanced;
    ``end`` is just past the closing brace), in order. The caller clips ``text`` if it needs to."""
    found: list[tuple[int, int, str]] = []
    for tag in ("\\boxed", "\\fbox"):
        start = 0
        while True:
            i = text.find(tag, start)
            if i < 0:
                break
            j = i + len(tag)
            while j < len(text) and text[j] == " ":
                j += 1
            if j >= len(text) or text[j] != "{":
                start = j
                continue
            depth, k = 0, j
            while k < len(text):
                ch = text[k]
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            if depth != 0:  # unbalanced: truncated output
                break
            found.append((i, k + 1, text[j + 1 : k]))
            start = k + 1
    found.sort()
    return found


def boxed_all(text: str) -> list[str]:
    r"""Every ``\boxed{...}`` / ``\fbox{...}`` content, with nested braces balanced."""
    return [c for _, _, c in boxed_spans(clip(text))]


def boxed(text: str, policy: Policy = "last") -> str | None:
    return _pick(boxed_all(text), policy)


def choice_letter(text: str, letters: str = "ABCDEF", policy: Policy = "last") -> str | None:
    """``ANSWER: X`` or ``答案是X``; the final occurrence by default."""
    text = clip(text)
    found: list[tuple[int, str]] = []
    for rx in (_ANSWER_EN_RE, _ANSWER_ZH_RE):
        for m in rx.finditer(text):
            letter = m.group(1).upper()
            if letter in letters:
                found.append((m.start(), letter))
    if not found:
        return lone_boxed_letter(text, letters)
    found.sort()
    return found[0][1] if policy == "first" else found[-1][1]


def _box_letter(content: str) -> str:
    return re.sub(r"\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}", r"\1", content).strip().strip("{}()$ ").strip()


def lone_boxed_letter(text: str, letters: str = "ABCDEF") -> str | None:
    r"""The letter of a lone ``\boxed{X}``: the text's boxes all read one and the same letter (``\boxed{A}``,
    ``\boxed{\text{A}}`` twice). Several different boxes (``\boxed{A} and \boxed{D}``), or a box that is not a
    letter, answer nothing: the model did not settle on one option."""
    seen = {_box_letter(b).upper() for b in boxed_all(text)}
    if len(seen) == 1:
        (only,) = seen
        if len(only) == 1 and only in letters:
            return only
    return None


def answer_line(text: str, policy: Policy = "last") -> str | None:
    """Free-form ``Answer: ...`` line content."""
    return _pick([m.strip() for m in _ANSWER_ANY_RE.findall(clip(text))], policy)
