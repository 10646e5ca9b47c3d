"""One kept-alive HTTP/1.1 connection (an ``asyncio.Protocol``): it sends a request's bytes, parses the response
head, then frames the body (``Content-Length``, chunked, or until the server closes) into the response's
:class:`~.body.Body`. It serves one request at a time; the pool (:mod:`.client`) takes it back only once a response
was read to its end.

Failures are aiohttp's exception classes, with aiohttp's meaning: the server closing (or resetting) before the
response head is ``ServerDisconnectedError`` (``ClientOSError`` for a reset), before the end of the body
``ClientPayloadError``; a read silent past the read timeout ``SocketTimeoutError``; a response that is not HTTP
:class:`~.response.ProtocolError`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

import aiohttp

from .body import Body
from .response import MAX_HEAD, ProtocolError, Response, parse_head


class Pool(Protocol):
    """What a connection tells its pool (:class:`~.client.Origin`)."""

    def forget(self, conn: Connection) -> None: ...

    def give_back(self, conn: Connection) -> None: ...

_IDLE, _HEAD, _LENGTH, _CHUNKED, _UNTIL_CLOSE, _DONE = range(6)
_CHUNK_SIZE, _CHUNK_DATA, _CHUNK_CRLF, _TRAILER = range(4)
MAX_CHUNK_LINE = 4096


class Disconnected(Exception):
    """The server closed (or reset) the connection before sending any byte of the response: the pool sends a
    request sent on a reused connection once more, on a fresh one; else it raises :meth:`error`."""

    def __init__(self, exc: BaseException | None) -> None:
        super().__init__(exc)
        self.exc = exc

    def error(self) -> aiohttp.ClientError:
        """What aiohttp raises for it: ``ServerDisconnectedError`` (closed), ``ClientOSError`` (reset)."""
        if isinstance(self.exc, OSError):
            return aiohttp.ClientOSError(*self.exc.args)
        return aiohttp.ServerDisconnectedError()


class Connection(asyncio.Protocol):
    __slots__ = ("origin", "transport", "closed", "reused", "idle_since", "_state", "_buf", "_head", "_resp",
                 "_body", "_left", "_chunk", "_keep", "_got", "_exc", "_read_timeout", "_timer", "_last", "_no_body")

    def __init__(self, origin: Pool, read_timeout: float | None) -> None:
        self.origin = origin
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.reused = False
        self.idle_since = 0.0
        self._state = _IDLE
        self._buf = b""
        self._head: asyncio.Future[Response] | None = None
        self._resp: Response | None = None
        self._body: Body | None = None
        self._left = 0  # body bytes (Content-Length) or bytes of the current chunk still to come
        self._chunk = _CHUNK_SIZE
        self._keep = False  # the response allows the connection to be used again
        self._got = False  # a byte of the current response arrived
        self._exc: BaseException | None = None
        self._read_timeout = read_timeout
        self._timer: asyncio.TimerHandle | None = None
        self._last = 0.0
        self._no_body = False

    # ---- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        state = self._state
        if state == _LENGTH:
            left = self._left
            if len(data) < left:
                self._left = left - len(data)
                self._body.feed(data)  # type: ignore[union-attr]
            else:
                self._body.feed(data if len(data) == left else data[:left])  # type: ignore[union-attr]
                if len(data) > left:
                    self._keep = False  # more than the response: the connection is not to be trusted
                self._finish()
        elif state == _HEAD:
            self._got = True
            self._on_head(data)
        elif state == _CHUNKED:
            self._on_chunked(data)
        elif state == _UNTIL_CLOSE:
            self._body.feed(data)  # type: ignore[union-attr]
        else:  # bytes nobody asked for (idle, or after the response): the connection is not to be reused
            self._keep = False
            self.close()
        if self._read_timeout is not None:
            self._last = time.monotonic()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._stop_timer()
        self.origin.forget(self)
        state = self._state
        if state == _HEAD:
            if not self._got:
                err: BaseException = Disconnected(exc)
            elif isinstance(exc, OSError):
                err = aiohttp.ClientOSError(*exc.args)
            else:
                err = aiohttp.ServerDisconnectedError()
            self._fail(err)
        elif state == _UNTIL_CLOSE:
            if exc is None:
                self._body.feed_eof()  # type: ignore[union-attr]
                self._state = _DONE
            else:
                self._fail(aiohttp.ClientPayloadError(f"Response payload is not completed: {exc!r}"))
        elif state in (_LENGTH, _CHUNKED):
            what = (f"{self._left} bytes of its Content-Length missing" if state == _LENGTH
                    else "its chunked encoding not ended")
            self._fail(aiohttp.ClientPayloadError(
                f"Response payload is not completed: the connection closed with {what}"
                + (f" ({exc!r})" if exc is not None else "")))

    def pause(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.pause_reading()

    def resume(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.resume_reading()

    # ---- one request
    async def exchange(self, data: bytes, no_body: bool = False) -> Response:
        """Send ``data`` (the request's head and body) and wait for the response head."""
        assert self.transport is not None and self._state == _IDLE
        loop = asyncio.get_running_loop()
        self._head = loop.create_future()
        self._state = _HEAD
        self._got = False
        self._keep = False
        self._no_body = no_body
        if self._read_timeout is not None:
            self._last = time.monotonic()
            self._timer = loop.call_later(self._read_timeout, self._check_read)
        self.transport.write(data)
        try:
            return await self._head
        except BaseException:
            self.close()
            raise
        finally:
            self._head = None

    def release(self, resp: Response) -> None:
        """The response is done with: the connection is kept if it was read to its end (and the server allows it)."""
        if self._state == _DONE and self._keep and not self.closed and self._resp is resp:
            self._state = _IDLE
            self._resp = self._body = None
            self._stop_timer()
            self.origin.give_back(self)
        else:
            self.close()

    def close(self) -> None:
        self._stop_timer()
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()
            self.origin.forget(self)

    # ---- parsing
    def _on_head(self, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    self._buf = b""
                    return self._error(ProtocolError(f"response head over {MAX_HEAD // 1024} KiB"))
                self._buf = buf
                return None
            if end > MAX_HEAD:
                self._buf = b""
                return self._error(ProtocolError(f"response head over {MAX_HEAD // 1024} KiB"))
            try:
                status, reason, http11, headers = parse_head(buf[:end])
            except ProtocolError as e:
                self._buf = b""
                return self._error(e)
            buf = buf[end + 4:]
            if 100 <= status < 200 and status != 101:
                continue  # an interim response (100 Continue...): the real one follows
            break
        self._buf = b""
        conn_opts = headers.get("connection", "").lower()
        self._keep = ("close" not in conn_opts) if http11 else ("keep-alive" in conn_opts)
        te = headers.get("transfer-encoding")
        cl = headers.get("content-length")
        length: int | None = None
        if cl is not None:
            cl = cl.strip()
            if not cl.isdigit():
                if len({v.strip() for v in cl.split(",")}) == 1 and cl.split(",")[0].strip().isdigit():
                    cl = cl.split(",")[0].strip()  # the same length repeated
                else:
                    return self._error(ProtocolError(f"malformed Content-Length {cl[:40]!r}"))
            length = int(cl)
        body = Body(self, headers.get("content-encoding"))
        resp = Response(status, reason, headers, length if te is None else None, body, self)
        self._resp, self._body = resp, body
        if self._head is not None and not self._head.done():
            self._head.set_result(resp)
        if self._no_body or status in (204, 304) or (te is None and length == 0):
            if buf:
                self._keep = False
            return self._finish()
        if te is not None:
            if cl is not None:
                self._keep = False  # both: Transfer-Encoding wins, and the connection is not to be reused
            if te.lower().rsplit(",", 1)[-1].strip() == "chunked":
                self._state, self._chunk, self._left = _CHUNKED, _CHUNK_SIZE, 0
                if buf:
                    self._on_chunked(buf)
                return None
            self._keep = False
            self._state = _UNTIL_CLOSE
        elif length is not None:
            self._state, self._left = _LENGTH, length
        else:
            self._keep = False
            self._state = _UNTIL_CLOSE
        if buf:
            self.data_received(buf)
        return None

    def _on_chunked(self, data: bytes) -> None:
        buf = self._buf + data if self._buf else data
        pos, end = 0, len(buf)
        body = self._body
        assert body is not None
        while pos < end:
            state = self._chunk
            if state == _CHUNK_DATA:
                take = min(end - pos, self._left)
                body.feed(buf if pos == 0 and take == end else buf[pos:pos + take])
                pos += take
                self._left -= take
                if not self._left:
                    self._chunk = _CHUNK_CRLF
            elif state == _CHUNK_CRLF:
                if end - pos < 2:
                    break
                if buf[pos:pos + 2] != b"\r\n":
                    return self._error(ProtocolError("malformed chunked body: no CR LF after a chunk"))
                pos += 2
                self._chunk = _CHUNK_SIZE
            else:
                nl = buf.find(b"\r\n", pos)
                if nl < 0:
                    if end - pos > MAX_CHUNK_LINE:
                        return self._error(ProtocolError("malformed chunked body: a chunk line too long"))
                    break
                line = buf[pos:nl]
                pos = nl + 2
                if state == _TRAILER:
                    if not line:  # the end of the body
                        self._buf = b""
                        if pos < end:
                            self._keep = False
                        return self._finish()
                    continue  # a trailer field: ignored
                size = line.split(b";", 1)[0].strip()
                try:
                    if not size or len(size) > 16:
                        raise ValueError
                    n = int(size, 16)
                except ValueError:
                    return self._error(ProtocolError(f"malformed chunk size {line[:40]!r}"))
                if n:
                    self._chunk, self._left = _CHUNK_DATA, n
                else:
                    self._chunk = _TRAILER
        self._buf = buf[pos:] if pos < end else b""

    def _finish(self) -> None:
        self._state = _DONE
        self._stop_timer()
        self._body.feed_eof()  # type: ignore[union-attr]

    def _fail(self, exc: BaseException) -> None:
        """The response cannot be completed: whoever waits (for the head, or for the body) gets ``exc``."""
        self._state = _DONE
        self._keep = False
        if self._head is not None and not self._head.done():
            self._head.set_exception(exc)
        elif self._body is not None:
            self._body.set_exception(exc)

    def _error(self, exc: BaseException) -> None:
        self._fail(exc)
        self.close()

    # ---- the read timeout (only when one is set): checked lazily, one timer per silence, not per chunk
    def _check_read(self) -> None:
        self._timer = None
        if self._state in (_IDLE, _DONE) or self.closed:
            return
        assert self._read_timeout is not None
        wait = self._last + self._read_timeout - time.monotonic()
        if wait > 0 or (self._body is not None and self._body._paused):
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.05), self._check_read)
            return
        self._error(aiohttp.SocketTimeoutError("Timeout on reading data from socket"))

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
