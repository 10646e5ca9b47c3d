"""R-Bench answer extraction: the FINAL ``ANSWER: X`` / ``答案是X`` wins.

OpenCompass takes the first match anywhere in the text, which picks up letters a reasoning model
mentions mid-way; here the last occurrence counts (then a last-line ``Answer: X`` in any case, then a
lone ``\\boxed{X}``). Anything else is "unextractable", which is reported separately from wrong.

The text is read as a reader would read it: full-width forms (``答案是Ｄ``, ``ＡＮＳＷＥＲ：Ｂ``) are the
letters they show (Unicode NFKC compatibility normalisation, which also folds full-width colons and
brackets).
"""

from __future__ import annotations

import re
import unicodedata

from ...scoring.extract import choice_letter, clip

_LAST_LINE_RE = re.compile(
    r"^\W*(?:final\s+answer|answer)\s*+\**+\s*+[:：]\s*+\**+\s*+(?:\$\s*+)?[\(\[]?\s*+([A-Za-z])(?![A-Za-z0-9_])",
    re.IGNORECASE)


def extract_letter(text: str, letters: str = "ABCDEF") -> tuple[str | None, str]:
    """(letter or None, which rule found it: "answer-line" | "last-line" | "none")."""
    text = unicodedata.normalize("NFKC", clip(text))
    got = choice_letter(text, letters=letters, policy="last")
    if got is not None:
        return got, "answer-line"
    lines = [ln for ln in clip(text).splitlines() if ln.strip()]
    if lines:
        m = _LAST_LINE_RE.match(lines[-1].strip()[:200])
        if m and m.group(1).upper() in letters:
            return m.group(1).upper(), "last-line"
    return None, "none"
