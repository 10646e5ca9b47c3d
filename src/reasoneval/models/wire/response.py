"""The head of an HTTP/1.1 response (status line and headers), parsed from bytes, and the response object the
backends read: the subset of ``aiohttp.ClientResponse`` this project uses (``status``, ``headers.get``,
``content_type``, ``content_length``, ``content``, ``read()``, ``release()``)."""

from __future__ import annotations

from typing import Protocol, overload

import aiohttp

from .body import Body


class Connection(Protocol):
    """What a response tells its connection (:class:`~.connection.Connection`)."""

    def release(self, resp: Response) -> None: ...

    def close(self) -> None: ...

MAX_HEAD = 64 * 1024  # bytes of a response head (status line + headers) at most
MAX_HEADERS = 128


class ProtocolError(aiohttp.ClientResponseError):
    """A response that is not HTTP/1.1 (a malformed status line or header, a head too long, a bad chunk)."""

    def __init__(self, message: str) -> None:
        super().__init__(None, (), message=message)  # type: ignore[arg-type]  # (no request info kept)

    def __str__(self) -> str:
        return self.message


class Headers:
    """Response headers, looked up without regard to case; repeated fields joined with ", "."""

    __slots__ = ("_d",)

    def __init__(self, d: dict[str, str]) -> None:
        self._d = d  # lower-case names

    @overload
    def get(self, name: str) -> str | None: ...

    @overload
    def get(self, name: str, default: str) -> str: ...

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._d.get(name.lower(), default)

    def __getitem__(self, name: str) -> str:
        return self._d[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._d

    def items(self) -> list[tuple[str, str]]:
        return list(self._d.items())

    def __repr__(self) -> str:
        return f"Headers({self._d!r})"


def parse_head(head: bytes) -> tuple[int, str, bool, dict[str, str]]:
    """(status, reason, HTTP/1.1?, headers by lower-case name) of a head without its final CR LF CR LF."""
    lines = head.split(b"\r\n")
    line = lines[0]
    parts = line.split(b" ", 2)
    if (len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or len(parts[0]) != 8 or len(parts[1]) != 3
            or not parts[1].isdigit()):
        raise ProtocolError(f"malformed status line {line[:100]!r}")
    if len(lines) > MAX_HEADERS + 1:
        raise ProtocolError(f"more than {MAX_HEADERS} response headers")
    headers: dict[str, str] = {}
    for raw in lines[1:]:
        name, colon, value = raw.partition(b":")
        if not colon or not name or name[-1:] in b" \t" or name[:1] in b" \t" or b"\n" in raw or b"\r" in raw:
            raise ProtocolError(f"malformed header line {raw[:100]!r}")
        key = name.decode("latin-1").lower()
        text = value.strip(b" \t").decode("latin-1")
        old = headers.get(key)
        headers[key] = text if old is None else f"{old}, {text}"
    return int(parts[1]), (parts[2] if len(parts) > 2 else b"").decode("latin-1"), parts[0] == b"HTTP/1.1", headers


class Response:
    """One response: its head, and its body as it arrives (``content``). Used as an async context manager (the
    request's, :class:`~.client.RequestContext`), it is released at the end: its connection goes back to the pool
    if the body was read to its end, else it is closed."""

    __slots__ = ("status", "reason", "headers", "content_length", "content", "_conn")

    def __init__(self, status: int, reason: str, headers: dict[str, str], content_length: int | None,
                 content: Body, conn: Connection) -> None:
        self.status = status
        self.reason = reason
        self.headers = Headers(headers)
        self.content_length = content_length
        self.content = content
        self._conn: Connection | None = conn

    @property
    def content_type(self) -> str:
        """The media type without its parameters, lower-case (``application/octet-stream`` when not given)."""
        value = self.headers.get("content-type")
        if not value:
            return "application/octet-stream"
        return value.partition(";")[0].strip().lower()

    async def read(self) -> bytes:
        return await self.content.read()

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.release(self)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
