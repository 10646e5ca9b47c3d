"""Text that is safe to store and show: no lone surrogates, no credentials, no terminal control codes.

* :func:`storable` -- SQLite (and UTF-8 files) cannot hold a lone surrogate such as ``"\\ud800"``, which a
  server can send as valid ASCII JSON. Such code points are replaced by their backslash escape (Python's
  ``backslashreplace``: ``\\ud800``), so the text is kept, readable and scorable; valid text is unchanged.
* :func:`redact` -- an API key echoed back by a server (401 bodies that reflect the ``Authorization``
  header, ...) must not reach the store, the reports or the exports. Backends register their key with
  :func:`register_secret` (the API keys of the environment, :data:`SECRET_VARIABLES`, are registered on first
  use); besides those exact values, any 8-character piece of one (a key cut short by a server or a
  truncation), ``Bearer <token>``, ``sk-...`` tokens and the values of ``Authorization`` / ``api_key`` fields
  are replaced by ``[REDACTED]``. Model output (:func:`redact_secrets`) loses only whole registered values:
  an 8-character piece of a key such as ``sk-no-key-required`` can be an ordinary word of an answer.
* :func:`strip_controls` -- text from a server (error bodies, a redirect ``Location``, anything it names) must
  not drive the terminal it is printed on: escape sequences (``ESC [ ... m``, ``ESC ] 0; title BEL``),
  C0/C1 control characters and bidirectional overrides are removed.
* :func:`shown` -- text from files and stores (imported file, model and member names, stored run fields, a
  completion) shown on a terminal: every control character and bidirectional override is made *visible* as its
  escape (``ESC`` -> ``\\x1b``, ``BEL`` -> ``\\x07``, C1 ``CSI`` -> ``\\x9b``, ``U+202E`` -> ``\\u202e``), so a
  name can neither set the terminal's title nor clear it, and what it held can still be read.
* :func:`html_safe` -- a whole HTML page: no raw C0/C1 control character survives (``ESC`` becomes the control
  picture ``U+241B``, C1 characters ``U+FFFD``); tab and line breaks stay.
* :func:`server_text` -- the one way server text becomes part of a message: control codes stripped, then
  credentials redacted, *then* cut to length (cutting first could leave the head of a key the redaction no
  longer recognises).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

REDACTED = "[REDACTED]"
_SECRETS: set[str] = set()
_PIECES: set[str] = set()  # every 8-character piece of a registered secret
PIECE = 8
#: environment variables holding credentials: their values are redacted wherever they show up
SECRET_VARIABLES = ("OPENAI_API_KEY", "REASONEVAL_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN")
_ENV_READ = False
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
            _PIECES.update(value[i:i + PIECE] for i in range(len(value) - PIECE + 1))


def _register_environment() -> None:
    global _ENV_READ
    if not _ENV_READ:
        _ENV_READ = True
        for name in SECRET_VARIABLES:
            register_secret(os.environ.get(name))


def _secrets_removed(text: str) -> str:
    for s in sorted(_SECRETS, key=len, reverse=True):
        if s in text:
            text = text.replace(s, REDACTED)
    return text


def _pieces_removed(text: str) -> str:
    """Every stretch of ``text`` covered by 8-character pieces of a registered secret becomes ``[REDACTED]``."""
    spans: list[tuple[int, int]] = []
    for piece in _PIECES:
        i = text.find(piece)
        while i >= 0:
            spans.append((i, i + PIECE))
            i = text.find(piece, i + 1)
    if not spans:
        return text
    spans.sort()
    out: list[str] = []
    pos = 0
    start, end = spans[0]
    for a, b in spans[1:]:
        if a <= end:
            end = max(end, b)
            continue
        out += [text[pos:start], REDACTED]
        pos, start, end = end, a, b
    out += [text[pos:start], REDACTED, text[end:]]
    return "".join(out)


def redact(text: str) -> str:
    """Credentials removed: registered secrets and any 8-character piece of one, bearer/sk- tokens and
    authorization/api-key values."""
    _register_environment()
    text = _secrets_removed(text)
    if _PIECES:
        text = _pieces_removed(text)
    if not _HINT.search(text):
        return text
    for p in _PATTERNS:
        text = p.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_secrets(text: str) -> str:
    """Only the registered secret values (for model output, where token-like patterns can be answers)."""
    _register_environment()
    return _secrets_removed(text) if _SECRETS else text


# escape sequences: CSI (ESC [ or the C1 byte 0x9b), OSC (ESC ] or 0x9d, up to BEL or ST), DCS/SOS/PM/APC
# strings (up to ST), and the two-character ESC sequences
_ESCAPES = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
                      r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
                      r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"
                      r"|\x1b[ -~]?")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BREAKS = re.compile("[\t\n\r\x0b\x0c\u2028\u2029]+")


def strip_controls(text: str, keep_newlines: bool = False) -> str:
    """``text`` without terminal escape sequences, control characters or bidirectional overrides; line
    breaks and tabs become one space unless ``keep_newlines`` (then tabs and newlines stay)."""
    text = _ESCAPES.sub("", text)
    if not keep_newlines:
        text = _BREAKS.sub(" ", text)
    return _CONTROLS.sub("", text.replace("\r\n", "\n") if keep_newlines else text)


def server_text(raw: str | bytes, limit: int = 300) -> str:
    """Text a server sent, made fit for an error message: decoded, control codes stripped, credentials
    redacted, *then* cut to ``limit`` characters (with an ellipsis), lone surrogates escaped."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = redact(strip_controls(text))
    if len(text) > limit:
        text = text[:limit] + "\u2026"
    return storable(text)


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


_SHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SHOWN_LINES = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def shown(text: object, keep_newlines: bool = False) -> str:
    """``text`` for a terminal: control characters and bidirectional overrides written as visible escapes
    (``\\x1b``, ``\\x07``, ``\\u202e``); tabs and line breaks too unless ``keep_newlines``."""
    t = "" if text is None else str(text)
    return (_SHOWN if keep_newlines else _SHOWN_LINES).sub(_escape, t)


_HTML_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _picture(m: re.Match[str]) -> str:
    c = ord(m.group())
    return chr(0x2400 + c) if c < 0x20 else "\u2421" if c == 0x7F else "\ufffd"


def html_safe(page: str) -> str:
    """An HTML page (or any text put into one) without raw control characters: C0 as their control pictures
    (``ESC`` -> ``U+241B``, ``BEL`` -> ``U+2407``), ``DEL`` ``U+2421``, C1 ``U+FFFD``; tab, LF and CR kept. The
    pictures are plain characters, so the page's markup, scripts and JSON are unaffected."""
    return _HTML_CONTROLS.sub(_picture, page)


_JSON_RAW = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_shown(doc: object, indent: int | None = None, default: Any = None) -> str:
    """``doc`` as JSON for a terminal: non-ASCII text kept readable (``ensure_ascii=False``), but the characters
    JSON may leave raw that a terminal acts on (``DEL``, C1 controls, bidirectional overrides) written as
    ``\\uXXXX`` escapes (the same JSON value; C0 controls JSON always escapes)."""
    import json

    text = json.dumps(doc, ensure_ascii=False, indent=indent, default=default)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
