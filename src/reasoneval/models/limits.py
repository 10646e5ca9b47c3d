"""How much of one HTTP response a backend reads: bytes received, bytes after decompression, answer characters.

A server can send a 1 MB gzip body that expands to 1 GiB, or an event stream that never ends; nothing it
sends may take more memory than these limits allow. Every read of a 2xx body goes through
:func:`read_body` or :class:`SSEReader`; error bodies (4xx) through :func:`read_capped`. Over a limit, the
attempt fails as an ``oversized`` response (:class:`~reasoneval.models.validate.ResponseRejected`): it is
retried like a malformed one and then recorded as the item's error with the limit named.

Defaults (``reasoneval run --max-response-mb / --max-decoded-mb / --max-response-chars``):

* ``max_bytes`` 64 MiB received (compressed or not; a declared ``Content-Length`` above it is refused before
  reading),
* ``max_decoded_bytes`` 64 MiB after decompression (for an uncompressed body the same count as ``max_bytes``;
  an event stream spends ~250 bytes per token, so 64 MiB is ~250,000 streamed tokens; a plain body of a
  100,000-token answer is under 1 MB),
* ``max_chars`` 8,000,000 characters of answer plus reasoning (~2 million tokens, far above any model's
  output limit).

A plain (non-streamed) body is held whole until it is parsed, so its memory is bounded by
``max_decoded_bytes`` (per request in flight: ``--concurrency`` hostile responses at once can hold that many
times the limit); a streamed one is parsed event by event and holds only the text read so far (at most
``max_chars``). Decompression itself is incremental (:mod:`.wire.body` inflates at most 256 KiB at a time, as the
reader asks), so a bomb never expands past the limit by more than that.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .progress import touch
from .validate import ResponseRejected

if TYPE_CHECKING:
    from .wire import Response

MiB = 1 << 20


@dataclass(frozen=True)
class ResponseLimits:
    max_bytes: int = 64 * MiB  # bytes received for one response (before decompression)
    max_decoded_bytes: int = 64 * MiB  # bytes after decompression (the body as parsed)
    max_chars: int = 8_000_000  # characters of answer + reasoning, streamed or plain

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_decoded_bytes", "max_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"response limit {name} must be at least 1 (got {getattr(self, name)})")

    @classmethod
    def of(cls, response_mb: float | None = None, decoded_mb: float | None = None,
           chars: int | None = None) -> ResponseLimits:
        """Limits from the CLI's units (MiB, characters); None keeps a default."""
        d = cls()
        return cls(d.max_bytes if response_mb is None else max(1, int(response_mb * MiB)),
                   d.max_decoded_bytes if decoded_mb is None else max(1, int(decoded_mb * MiB)),
                   d.max_chars if chars is None else chars)


def _mib(n: int) -> str:
    return f"{n / MiB:g} MiB" if n >= MiB else f"{n} bytes"


def _check_size(resp: Response, decoded: int, limits: ResponseLimits) -> None:
    if decoded > limits.max_decoded_bytes:
        raise ResponseRejected("oversized", f"body over {_mib(limits.max_decoded_bytes)} once decompressed "
                                            "(--max-decoded-mb)")
    raw = getattr(resp.content, "total_raw_bytes", decoded)  # compressed bytes
    if isinstance(raw, int) and raw > limits.max_bytes:
        raise ResponseRejected("oversized", f"body over {_mib(limits.max_bytes)} (--max-response-mb)")


def check_declared_length(resp: Response, limits: ResponseLimits) -> None:
    """Refuse before reading a body whose declared ``Content-Length`` is over ``max_bytes``."""
    n = getattr(resp, "content_length", None)  # None: not declared (chunked, or an event stream)
    if n is not None and n > limits.max_bytes:
        raise ResponseRejected("oversized", f"Content-Length {n} over {_mib(limits.max_bytes)} "
                                            "(--max-response-mb)")


async def read_body(resp: Response, limits: ResponseLimits) -> bytes:
    """The whole (decompressed) body, read chunk by chunk and refused as soon as it passes a limit."""
    check_declared_length(resp, limits)
    n = getattr(resp, "content_length", None)
    if (isinstance(n, int) and n <= limits.max_decoded_bytes
            and resp.headers.get("Content-Encoding", "identity").lower() == "identity"):
        # a declared, uncompressed length within both limits: exactly that many bytes are read (the common case,
        # one read instead of a loop over the chunks)
        body = await resp.read()
        touch()
        return body
    buf = bytearray()
    async for chunk in resp.content.iter_any():
        touch()
        buf += chunk
        _check_size(resp, len(buf), limits)
    return bytes(buf)


async def read_capped(resp: Response, n: int) -> bytes:
    """At most ``n`` bytes of the body (an error body: the rest is never read, the connection is dropped)."""
    buf = bytearray()
    async for chunk in resp.content.iter_any():
        buf += chunk
        if len(buf) >= n:
            break
    return bytes(buf[:n])


class SSEReader:
    """The events of a server-sent-events response, parsed as JSON objects, within the limits.

    Parsed as the WHATWG event-stream rules say (https://html.spec.whatwg.org/multipage/server-sent-events.html,
    "Parsing an event stream"):

    * lines end in CR LF, LF or CR (a CR LF split across two network chunks is one line end);
    * a UTF-8 byte order mark at the very start of the stream is dropped (before, it hid the first ``data:``
      line, and the answer was stored from its second part);
    * ``field: value`` lines: one space after the colon is dropped; a line starting with ``:`` is a comment
      (keep-alives such as ``: ping``); a line without a colon is a field with an empty value;
    * ``data`` lines accumulate: an event of several ``data:`` lines is their values joined with ``\n``
      (before: each line was parsed alone and the event refused as malformed); ``event`` sets the event's type
      (an ``error`` event whose data is not already an ``{"error": ...}`` object is wrapped in one, so it is
      judged as an error by :mod:`.validate`); ``id`` and ``retry`` are read and kept (``last_id``, ``retry_ms``)
      but change nothing here: a broken stream is never resumed, the attempt is retried whole;
    * an event is dispatched at a blank line; an event with no data is skipped; an event the stream did not end
      with its blank line (cut off) is dropped, as the rules say, so a cut stream never passes off its last,
      possibly partial, event as read (the answer is then judged ``incomplete`` unless a finish reason or
      ``[DONE]`` came before).

    ``done`` tells afterwards whether the stream said ``[DONE]`` (as OpenAI-compatible servers end a stream);
    iteration stops there. Data that is not a JSON object raises (the attempt is retried as malformed). Each
    chunk is split once, and a line still open keeps its pieces unjoined, so the time is linear in the bytes
    (a hostile server can send one endless line: it stops at ``max_decoded_bytes``). Every chunk received is
    reported to the request's progress (:func:`touch`), which is what the scheduler's silence windows watch."""

    def __init__(self, resp: Response, limits: ResponseLimits) -> None:
        self.resp = resp
        self.limits = limits
        self.done = False
        self.last_id: str | None = None
        self.retry_ms: int | None = None
        self._data: list[bytes] = []
        self._type = ""
        self._first_line = True

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._events()

    async def _events(self) -> AsyncIterator[dict[str, Any]]:
        check_declared_length(self.resp, self.limits)
        partial: list[bytes] = []  # the pieces of a line not ended yet (one endless line: many pieces, no copy)
        decoded = 0
        after_cr = False  # the last chunk ended in CR: a LF starting the next one belongs to that line end
        async for chunk in self.resp.content.iter_any():
            touch()
            decoded += len(chunk)
            _check_size(self.resp, decoded, self.limits)
            if after_cr and chunk.startswith(b"\n"):
                chunk = chunk[1:]
            after_cr = False
            if b"\n" not in chunk and b"\r" not in chunk:
                if chunk:
                    partial.append(chunk)
                continue
            if partial:
                partial.append(chunk)
                chunk = b"".join(partial)
            after_cr = chunk.endswith(b"\r")
            lines = _LINE_END.split(chunk) if b"\r" in chunk else chunk.split(b"\n")
            partial = [lines.pop()]  # after the last line end ("" when the chunk ended in one)
            for line in lines:
                ev = self._line(line)
                if ev is not None:
                    yield ev
                if self.done:
                    return
        # the end of the stream: a line or event not ended by its blank line is discarded (see the docstring)

    def _line(self, raw: bytes) -> dict[str, Any] | None:
        """One line: a field added to the event being read, or (a blank line) that event dispatched."""
        if self._first_line:
            self._first_line = False
            if raw.startswith(_BOM):
                raw = raw[len(_BOM):]
        if not raw:
            return self._dispatch()
        if raw.startswith(b"data:"):  # the common line, kept as bytes (JSON is parsed from bytes)
            self._data.append(raw[6:] if raw.startswith(b"data: ") else raw[5:])
            return None
        if raw.startswith(b":"):
            return None  # a comment (keep-alive)
        name, colon, value = raw.decode("utf-8", errors="replace").partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":  # (only "data" without a colon reaches here: an empty data line)
            self._data.append(value.encode())
        elif name == "event":
            self._type = value
        elif name == "id":
            if "\0" not in value:
                self.last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self.retry_ms = int(value)
        return None  # any other field is ignored, as the rules say

    def _dispatch(self) -> dict[str, Any] | None:
        data, kind = self._data, self._type
        self._data, self._type = [], ""
        if not data:
            return None
        text = data[0] if len(data) == 1 else b"\n".join(data)
        stripped = text.strip()
        if stripped == b"[DONE]":
            self.done = True
            return None
        if not stripped:
            return None
        ev = json.loads(text)
        if not isinstance(ev, dict):
            raise ResponseRejected("malformed", f"an event that is not a JSON object: {text[:80]!r}")
        if kind == "error" and "error" not in ev and ev.get("type") != "error":
            ev = {"error": ev}  # an ``event: error`` is an error whatever its data looks like
        return ev


_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
