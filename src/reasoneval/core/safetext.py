"""Text that is safe to store and show: no lone surrogates, no credentials.

* :func:`storable` -- SQLite (and UTF-8 files) cannot hold a lone surrogate such as ``"\\ud800"``, which a
  server can send as valid ASCII JSON. Such code points are replaced by their backslash escape (Python's
  ``backslashreplace``: ``\\ud800``), so the text is kept, readable and scorable; valid text is unchanged.
* :func:`redact` -- an API key echoed back by a server (401 bodies that reflect the ``Authorization``
  header, ...) must not reach the store, the reports or the exports. Backends register their key with
  :func:`register_secret`; besides those exact values, ``Bearer <token>``, ``sk-...`` tokens and the values
  of ``Authorization`` / ``api_key`` fields are replaced by ``[REDACTED]``.
"""

from __future__ import annotations

import re
import threading

REDACTED = "[REDACTED]"
_SECRETS: set[str] = set()
_LOCK = threading.Lock()
_PATTERNS = (
    # header / field values: Authorization: Bearer x, "authorization": "x", api_key=x, x-api-key: x
    re.compile(r"(?i)((?:authorization|proxy-authorization|x-api-key|api[_-]?key)[\"']?\s*[:=]\s*[\"']?)"
               r"(?:(?:bearer|basic|token)\s+)?[^\s\"',;}&]+"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{4,}"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{8,}"),
)
_HINT = re.compile(r"(?i)bearer|sk-|authorization|api[_-]?key")


def register_secret(value: str | None) -> None:
    """Remember a credential so that it is redacted wherever it shows up (values under 6 chars are ignored)."""
    if value and len(value) >= 6:
        with _LOCK:
            _SECRETS.add(value)


def _secrets_removed(text: str) -> str:
    for s in sorted(_SECRETS, key=len, reverse=True):
        if s in text:
            text = text.replace(s, REDACTED)
    return text


def redact(text: str) -> str:
    """Credentials removed: registered secrets, bearer/sk- tokens and authorization/api-key values."""
    text = _secrets_removed(text)
    if not _HINT.search(text):
        return text
    for p in _PATTERNS:
        text = p.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_secrets(text: str) -> str:
    """Only the registered secret values (for model output, where token-like patterns can be answers)."""
    return _secrets_removed(text) if _SECRETS else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable_json(doc: str) -> str:
    """A JSON document with lone surrogates stored as the literal text ``\\udXXX`` (inside JSON strings),
    so that it loads back to the same escaped text :func:`storable` gives for plain columns."""
    try:
        doc.encode("utf-8")
        return doc
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\\\u{ord(m.group()):04x}", doc)


def storable(text: str) -> str:
    """``text`` with lone surrogates escaped as ``\\udXXX`` (unchanged when it is valid Unicode)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
