r"""What a reward reads from a completion: its text, and a math answer's final value.

Both are linear-time string scans (``scoring/extract.py``); nothing here parses or evaluates the text.

* :func:`completion_text`: TRL hands a reward either plain strings or chat message lists
  (``[{"role": "assistant", "content": ...}]``, ``content`` possibly a list of ``{"type": "text"}`` parts);
  the assistant turns' text is joined.
* :func:`final_answer`: the final answer of a worked math solution, the way the common math sets write it:
  the last ``\boxed{...}``, else after the last ``The answer is:`` (MetaMathQA), else after the last
  ``####`` (GSM8K), else after the last ``Answer:`` line; a short one-line text is its own answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.response import strip_think
from ..scoring.extract import boxed, clip

MAX_BARE_ANSWER = 60  # a whole text this short (one line) is read as the answer itself
_MARKERS = (
    re.compile(r"the\s+(?:final\s+)?answer\s+is\s*[:：]?", re.IGNORECASE),
    re.compile(r"####"),
    re.compile(r"^\s*\**\s*(?:final\s+)?answer\s*\**\s*[:：]", re.IGNORECASE | re.MULTILINE),
)
_TEXT_WRAP = re.compile(r"\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def completion_text(completion: Any) -> str:
    """The text of one completion as TRL passes it (a string or a list of chat messages)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content(completion.get("content"))
    if isinstance(completion, Sequence):
        msgs = [m for m in completion if isinstance(m, Mapping)]
        turns = [m for m in msgs if m.get("role", "assistant") == "assistant"] or msgs
        return "\n".join(_content(m.get("content")) for m in turns)
    return "" if completion is None else str(completion)


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping))
    return ""


def _tidy(ans: str) -> str:
    ans = _TEXT_WRAP.sub(r"\1", ans.strip())
    ans = ans.replace("$", "").replace("\\!", "").strip()
    ans = _THOUSANDS.sub("", ans)
    return ans.rstrip(".").strip()


def final_answer(text: str) -> str | None:
    """The final answer of a worked solution (``<think>`` removed), or None when it has none."""
    text = clip(strip_think(text))
    b = boxed(text)
    if b is not None and b.strip():
        return _tidy(b)
    for rx in _MARKERS:
        marks = list(rx.finditer(text))
        if marks:
            line = text[marks[-1].end():].strip().split("\n", 1)[0]
            inner = boxed(line)
            ans = _tidy(inner if inner is not None else line)
            if ans:
                return ans
    bare = text.strip()
    if bare and "\n" not in bare and len(bare) <= MAX_BARE_ANSWER:
        return _tidy(bare)
    return None
