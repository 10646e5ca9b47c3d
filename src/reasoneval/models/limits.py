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
``max_chars``). Decompression itself is incremental (aiohttp inflates one network chunk at a time), so a bomb
never expands past the limit by more than a chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from .validate import ResponseRejected

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


def _check_size(resp: aiohttp.ClientResponse, decoded: int, limits: ResponseLimits) -> None:
    if decoded > limits.max_decoded_bytes:
        raise ResponseRejected("oversized", f"body over {_mib(limits.max_decoded_bytes)} once decompressed "
                                            "(--max-decoded-mb)")
    raw = getattr(resp.content, "total_raw_bytes", decoded)  # compressed bytes (aiohttp >= 3.12)
    if isinstance(raw, int) and raw > limits.max_bytes:
        raise ResponseRejected("oversized", f"body over {_mib(limits.max_bytes)} (--max-response-mb)")


def check_declared_length(resp: aiohttp.ClientResponse, limits: ResponseLimits) -> None:
    """Refuse before reading a body whose declared ``Content-Length`` is over ``max_bytes``."""
    n = getattr(resp, "content_length", None)  # None: not declared (chunked, or an event stream)
    if n is not None and n > limits.max_bytes:
        raise ResponseRejected("oversized", f"Content-Length {n} over {_mib(limits.max_bytes)} "
                                            "(--max-response-mb)")


async def read_body(resp: aiohttp.ClientResponse, limits: ResponseLimits) -> bytes:
    """The whole (decompressed) body, read chunk by chunk and refused as soon as it passes a limit."""
    check_declared_length(resp, limits)
    n = getattr(resp, "content_length", None)
    if (isinstance(n, int) and n <= limits.max_decoded_bytes
            and resp.headers.get("Content-Encoding", "identity").lower() == "identity"):
        # a declared, uncompressed length within both limits: exactly that many bytes are read (the common case,
        # one read instead of a loop over the chunks)
        return await resp.read()
    buf = bytearray()
    async for chunk in resp.content.iter_any():
        buf += chunk
        _check_size(resp, len(buf), limits)
    return bytes(buf)


async def read_capped(resp: aiohttp.ClientResponse, n: int) -> bytes:
    """At most ``n`` bytes of the body (an error body: the rest is never read, the connection is dropped)."""
    buf = bytearray()
    async for chunk in resp.content.iter_any():
        buf += chunk
        if len(buf) >= n:
            break
    return bytes(buf[:n])


class SSEReader:
    """The ``data:`` payloads of a server-sent-events response, parsed as JSON objects, within the limits.

    ``done`` tells afterwards whether the stream said ``[DONE]`` (as OpenAI-compatible servers end a stream);
    iteration stops there. Each chunk is split once, and a line still open keeps its pieces unjoined, so the
    time is linear in the bytes (a hostile server can send one endless line: it stops at
    ``max_decoded_bytes``)."""

    def __init__(self, resp: aiohttp.ClientResponse, limits: ResponseLimits) -> None:
        self.resp = resp
        self.limits = limits
        self.done = False

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._events()

    async def _events(self) -> AsyncIterator[dict[str, Any]]:
        check_declared_length(self.resp, self.limits)
        partial: list[bytes] = []  # the pieces of a line not ended yet (one endless line: many pieces, no copy)
        decoded = 0
        async for chunk in self.resp.content.iter_any():
            decoded += len(chunk)
            _check_size(self.resp, decoded, self.limits)
            if b"\n" not in chunk:
                partial.append(chunk)
                continue
            if partial:
                partial.append(chunk)
                chunk = b"".join(partial)
            lines = chunk.split(b"\n")
            partial = [lines.pop()]
            for line in lines:
                ev = self._event(line.strip())
                if ev is not None:
                    yield ev
                if self.done:
                    return
        ev = self._event(b"".join(partial).strip())
        if ev is not None:
            yield ev

    def _event(self, line: bytes) -> dict[str, Any] | None:
        if not line.startswith(b"data:"):
            return None  # comments (": ping"), event:/id: lines, blank separators
        data = line[5:].strip()
        if data == b"[DONE]":
            self.done = True
            return None
        if not data:
            return None
        ev = json.loads(data)
        if not isinstance(ev, dict):
            raise ResponseRejected("malformed", f"an event that is not a JSON object: {data[:80]!r}")
        return ev
