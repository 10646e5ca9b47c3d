"""Grouping failed calls by kind, so a user sees "12 x HTTP 429" rather than 12 long lines."""

from __future__ import annotations

import re

_ATTEMPTS = re.compile(r"^gave up after \d+ attempts: ")
_URL = re.compile(r"https?://\S*[^\s:]")  # a colon after the URL (``from URL: body``) is not part of it


def error_kind(message: str | None) -> str:
    """A short, stable label for an error message: URLs, response bodies and item details removed."""
    m = _ATTEMPTS.sub("", (message or "unknown error").strip())
    m = _URL.sub("<server>", m).splitlines()[0] if m else "unknown error"
    if m.startswith("HTTP "):  # "HTTP 400 from <server>: {body...}"
        m = m.split(": ", 1)[0]
    elif m.startswith(("malformed response", "incomplete response", "oversized response", "broken response",
                       "internal error")):
        m = m.split(": ", 1)[0]
    return m[:120]
