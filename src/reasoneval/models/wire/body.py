"""A response body as the connection receives it: raw payload chunks queued, decoded (gzip / deflate) only as the
reader asks for them, in pieces of at most :data:`PIECE` bytes, so a decompression bomb never expands further than
one piece past what the reader's limits (:mod:`..limits`) allow.

What a reader uses is the subset of ``aiohttp.StreamReader`` this project reads with: ``iter_any()`` (whatever has
arrived, decoded), ``read()`` (everything), ``total_raw_bytes`` (payload bytes received before decoding). Errors are
aiohttp's own classes (``ClientPayloadError`` for a body that cannot be decoded), set by the connection when it
breaks (:mod:`.connection`).
"""

from __future__ import annotations

import asyncio
import zlib
from collections import deque
from typing import Any, Protocol

import aiohttp

PIECE = 256 * 1024  # most decoded bytes handed to the reader at once
HIGH_WATER = 1 << 20  # raw bytes queued before the connection stops reading from the socket
LOW_WATER = 256 * 1024  # ... and starts again


class _Flow(Protocol):
    def pause(self) -> None: ...

    def resume(self) -> None: ...


def decoder(encoding: str | None) -> Any:
    """A zlib decompressor for a ``Content-Encoding`` (None: identity, or an encoding not asked for: passed on as
    received, as aiohttp does, so the body then fails as malformed)."""
    if not encoding:
        return None
    enc = encoding.strip().lower()
    if enc in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if enc == "deflate":
        return _Deflate()
    return None


class _Deflate:
    """``deflate`` as servers send it: zlib-wrapped (RFC 9110) or, from some, raw: told apart by the first byte."""

    __slots__ = ("_d",)

    def __init__(self) -> None:
        self._d: Any = None

    @property
    def unconsumed_tail(self) -> bytes:
        return self._d.unconsumed_tail if self._d is not None else b""

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if self._d is None:
            if not data:
                return b""
            self._d = zlib.decompressobj(zlib.MAX_WBITS if data[0] & 0x0F == 8 else -zlib.MAX_WBITS)
        out: bytes = self._d.decompress(data, max_length)
        return out

    def flush(self) -> bytes:
        return self._d.flush() if self._d is not None else b""


class Body:
    """The payload of one response (fed by the connection, read by one reader)."""

    __slots__ = ("_chunks", "_queued", "_eof", "_exc", "_waiter", "_decoder", "_flow", "_paused", "total_raw_bytes")

    def __init__(self, flow: _Flow, encoding: str | None) -> None:
        self._chunks: deque[bytes] = deque()
        self._queued = 0  # raw bytes queued
        self._eof = False
        self._exc: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._decoder = decoder(encoding)
        self._flow = flow
        self._paused = False
        self.total_raw_bytes = 0

    # ---- the connection's side
    def feed(self, data: bytes) -> None:
        self._chunks.append(data)
        n = len(data)
        self._queued += n
        self.total_raw_bytes += n
        if self._waiter is not None:
            self._wake()
        if self._queued > HIGH_WATER and not self._paused:
            self._paused = True
            self._flow.pause()

    def feed_eof(self) -> None:
        self._eof = True
        if self._waiter is not None:
            self._wake()

    def set_exception(self, exc: BaseException) -> None:
        if self._exc is None and not self._eof:
            self._exc = exc
        if self._waiter is not None:
            self._wake()

    @property
    def at_eof(self) -> bool:
        return self._eof and not self._chunks

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # ---- the reader's side
    def _take(self) -> bytes:
        chunks = self._chunks
        data = chunks.popleft() if len(chunks) == 1 else b"".join(chunks)
        chunks.clear()
        self._queued = 0
        if self._paused:
            self._paused = False
            self._flow.resume()
        return data

    async def _raw(self) -> bytes:
        """What has arrived (raw), waiting for something; b"" at the end."""
        while not self._chunks:
            if self._exc is not None:
                raise self._exc
            if self._eof:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self._take()

    def iter_any(self) -> Body:
        return self

    def __aiter__(self) -> Body:
        return self

    async def __anext__(self) -> bytes:
        dec = self._decoder
        if dec is None:
            data = await self._raw()
            if not data:
                raise StopAsyncIteration
            return data
        while True:
            try:
                tail = dec.unconsumed_tail
                if tail:
                    out: bytes = dec.decompress(tail, PIECE)
                else:
                    raw = await self._raw()
                    out = dec.decompress(raw, PIECE) if raw else dec.flush()
                    if not raw and not out:
                        raise StopAsyncIteration
            except zlib.error as e:
                raise aiohttp.ClientPayloadError(f"cannot decode the response's Content-Encoding: {e}") from e
            if out:
                return out

    async def read(self) -> bytes:
        """The whole body, decoded."""
        if self._decoder is None and self._eof and self._exc is None:
            return self._take() if self._chunks else b""  # all here already (the common case: no await)
        parts = [chunk async for chunk in self]
        return parts[0] if len(parts) == 1 else b"".join(parts)
