r"""Answers too large to compute: ``9^{9^{9}}`` (370 million digits), ``10^{10^{10}}``, ``100000000!``.

SymPy evaluates an integer power or factorial of plain numbers as soon as it parses it, so such an answer keeps a
sandbox worker busy until it is killed (math: 5 s) and then costs a worker restart; 38 of them among 256
completions took one reward call 60 s. :func:`too_large` finds them in the text, before any parsing, by the size
of the number they denote (its number of decimal digits, estimated with floats): towers of powers and factorials
of plain numbers, in braces or parentheses. It never evaluates the number, and it is linear in the answer's
length (bracket pairs are matched once; nesting deeper than :data:`MAX_NESTING` is not looked into).
"""

from __future__ import annotations

import math
import re

#: an answer denoting a number with more decimal digits than this is not computed (``2^{100000}`` has 30,103)
MAX_DIGITS = 100_000
MAX_NESTING = 32
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SPACE = re.compile(r"\s+|\\left|\\right|\\[!,;]")
_PAIRS = {"{": "}", "(": ")", "[": "]"}


def _matches(s: str) -> dict[int, int]:
    """Index of each opening bracket -> index of its closing one (unbalanced ones are left out)."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(s):
        if ch in _PAIRS:
            stack.append(i)
        elif ch in ")]}":
            if stack and _PAIRS[s[stack[-1]]] == ch:
                out[stack.pop()] = i
            else:
                stack.clear()
    return out


class _Reader:
    def __init__(self, s: str) -> None:
        self.s = s
        self.match = _matches(s)

    def tower(self, i: int, end: int, depth: int) -> tuple[float, int] | None:
        """(log10 of the magnitude, the index after it) of the tower at ``s[i:end]``: an operand, then
        ``^`` and an exponent (``{...}`` or one digit), right-associative; None when it is not one."""
        if depth > MAX_NESTING:
            return None
        got = self.operand(i, end, depth)
        if got is None:
            return None
        value, j = got
        if j < end and self.s[j] == "^":
            exp = self.exponent(j + 1, end, depth)
            if exp is None:
                return None
            e, j = exp
            value = 0.0 if value <= 0.0 else (math.inf if e > 300 else value * 10.0 ** e)
        return value, j

    def operand(self, i: int, end: int, depth: int) -> tuple[float, int] | None:
        s = self.s
        if i < end and s[i] in _PAIRS:
            close = self.match.get(i)
            if close is None or close >= end:
                return None
            inner = self.tower(i + 1, close, depth + 1)
            if inner is None or inner[1] != close:
                return None
            value, j = inner[0], close + 1
        else:
            m = _NUMBER.match(s, i, end)
            if m is None:
                return None
            n, j = float(m.group()), m.end()
            value = math.log10(n) if n > 0 else -math.inf
        if j < end and s[j] == "!":  # log10(n!) ~ n log10(n / e)
            n = 10.0 ** value if value < 300 else math.inf
            value = n * math.log10(n / math.e) if n > 10 else 1.0
            j += 1
        return value, j

    def exponent(self, i: int, end: int, depth: int) -> tuple[float, int] | None:
        s = self.s
        if i < end and s[i] == "{":
            close = self.match.get(i)
            if close is None or close >= end:
                return None
            inner = self.tower(i + 1, close, depth + 1)
            return None if inner is None or inner[1] != close else (inner[0], close + 1)
        if i < end and s[i].isdigit():
            return (math.log10(int(s[i])) if s[i] != "0" else -math.inf), i + 1
        return None


def too_large(answer: str) -> bool:
    """Whether ``answer`` holds a tower of powers or a factorial of plain numbers with more than
    :data:`MAX_DIGITS` digits anywhere (``1 + 9^{9^{9}}`` costs as much as ``9^{9^{9}}``)."""
    if "^" not in answer and "!" not in answer:
        return False
    s = _SPACE.sub("", answer)
    r = _Reader(s)
    starts = {m.start() for m in _NUMBER.finditer(s)} | set(r.match)
    for i in sorted(starts):
        if i > 0 and (s[i - 1].isdigit() or s[i - 1] == "."):
            continue  # inside a number
        got = r.tower(i, len(s), 0)
        if got is not None and got[0] > MAX_DIGITS:
            return True
    return False
