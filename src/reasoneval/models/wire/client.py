"""The client: a keep-alive pool of HTTP/1.1 connections per origin (scheme, host, port), plain TCP or TLS
(``ssl.create_default_context()``: the system's certificates, host names checked, as aiohttp's default), and the
request context a backend uses: ``async with client.post(url, data) as resp``.

Timeouts, as the backend's options give them (:class:`~reasoneval.models.http_backend.HTTPOptions`): the *total*
time of one request, from before it takes a connection until its response is released (body read included),
raises ``TimeoutError`` (plain, as aiohttp's total timeout); the *connect* timeout bounds opening a connection (TCP
and TLS) and raises ``aiohttp.ConnectionTimeoutError``; the optional *read* timeout bounds each silence while a
response is awaited or read and raises ``aiohttp.SocketTimeoutError``.

A request sent on a kept-alive connection the server had closed or reset meanwhile (nothing received) is sent once
more on a fresh connection (aiohttp does so for idempotent methods; for a model request it is the same request sent
again, as the backend's retry would); on a fresh one the same is ``ServerDisconnectedError`` (``ClientOSError`` for
a reset).
"""

from __future__ import annotations

import asyncio
import ssl
import sys
import time
from base64 import b64encode
from types import TracebackType
from urllib.parse import quote, unquote, urlsplit

import aiohttp
from aiohttp.client_reqrep import ConnectionKey

from .connection import Connection, Disconnected
from .response import Response

KEEPALIVE_S = 15.0  # an idle connection older than this is closed rather than used (aiohttp's default)
USER_AGENT = f"Python/{sys.version_info[0]}.{sys.version_info[1]} reasoneval"
_SAFE_PATH = "/%:@!$&'()*+,;=-._~"
_SAFE_QUERY = _SAFE_PATH + "?"


class Origin:
    """The connections to one (scheme, host, port): the idle ones (last used first) and all the open ones."""

    __slots__ = ("client", "host", "port", "ssl", "idle", "open", "key")

    def __init__(self, client: Client, host: str, port: int, ssl_context: ssl.SSLContext | None) -> None:
        self.client = client
        self.host = host
        self.port = port
        self.ssl = ssl_context
        self.idle: list[Connection] = []
        self.open: set[Connection] = set()
        self.key = ConnectionKey(host, port, ssl_context is not None, ssl_context or True, None, None, None)

    def forget(self, conn: Connection) -> None:
        self.open.discard(conn)  # (an idle one closed stays in ``idle`` until it is skipped there)

    def give_back(self, conn: Connection) -> None:
        if self.client.closed:
            conn.close()
            return
        conn.reused = True
        conn.idle_since = time.monotonic()
        self.idle.append(conn)

    def _idle(self) -> Connection | None:
        now = 0.0
        while self.idle:
            conn = self.idle.pop()
            if conn.closed:
                continue
            now = now or time.monotonic()
            if now - conn.idle_since > KEEPALIVE_S:
                conn.close()
                continue
            return conn
        return None

    async def connect(self) -> Connection:
        loop = asyncio.get_running_loop()
        client = self.client
        try:
            async with asyncio.timeout(client.connect_timeout_s or None):
                _, conn = await loop.create_connection(
                    lambda: Connection(self, client.read_timeout_s), self.host, self.port, ssl=self.ssl,
                    server_hostname=self.host if self.ssl is not None else None)
        except TimeoutError as e:  # (before OSError: a TimeoutError is one)
            raise aiohttp.ConnectionTimeoutError(f"Connection timeout to host {self.host}:{self.port}") from e
        except ssl.CertificateError as e:
            raise aiohttp.ClientConnectorCertificateError(self.key, e) from e
        except ssl.SSLError as e:
            raise aiohttp.ClientConnectorSSLError(self.key, e) from e
        except OSError as e:
            raise aiohttp.ClientConnectorError(self.key, e) from e
        if client.closed:
            conn.close()
            raise aiohttp.ClientConnectionError("the client was closed")
        self.open.add(conn)
        return conn

    async def request(self, data: bytes) -> Response:
        conn = self._idle() or await self.connect()
        try:
            return await conn.exchange(data)
        except Disconnected as e:
            if not conn.reused:
                raise e.error() from e.exc
        conn = await self.connect()  # the server had closed a kept-alive connection: once more, on a fresh one
        try:
            return await conn.exchange(data)
        except Disconnected as e:
            raise e.error() from e.exc

    def close(self) -> None:
        for conn in [*self.open, *self.idle]:
            conn.close()
        self.idle.clear()


class RequestContext:
    """``async with client.post(url, data) as resp``: the total timeout runs from entering to leaving; leaving
    releases the response (its connection kept only if the response was read to its end)."""

    __slots__ = ("_client", "_url", "_data", "_resp", "_timeout")

    def __init__(self, client: Client, url: str, data: bytes) -> None:
        self._client = client
        self._url = url
        self._data = data
        self._resp: Response | None = None
        self._timeout: asyncio.Timeout | None = None

    async def __aenter__(self) -> Response:
        client = self._client
        tm = asyncio.timeout(client.timeout_s) if client.timeout_s else None
        if tm is not None:
            await tm.__aenter__()
        self._timeout = tm
        try:
            origin, prefix = client.target(self._url)
            data = self._data
            self._resp = await origin.request(b"%s%d\r\n\r\n%s" % (prefix, len(data), data))
            return self._resp
        except BaseException as e:
            if tm is not None:
                await tm.__aexit__(type(e), e, e.__traceback__)  # (a TimeoutError if the total time ran out)
            raise

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._resp is not None:
            self._resp.release()
        if self._timeout is not None:
            await self._timeout.__aexit__(et, ev, tb)


class Client:
    """POSTs bytes to URLs over kept-alive HTTP/1.1 connections (see the module docstring); ``ssl_context``: the
    TLS settings of https URLs (None: the system's certificates, host names checked)."""

    def __init__(self, headers: dict[str, str], timeout_s: float | None, connect_timeout_s: float | None,
                 read_timeout_s: float | None = None, ssl_context: ssl.SSLContext | None = None) -> None:
        given = {name.lower() for name in headers}
        defaults = {"Accept": "*/*", "Accept-Encoding": "gzip, deflate", "User-Agent": USER_AGENT}
        fields = {**{k: v for k, v in defaults.items() if k.lower() not in given}, **headers}
        for name, value in fields.items():
            if any(c in name + value for c in "\r\n\0") or not name:
                raise ValueError(f"a request header cannot hold CR, LF or NUL: {name!r}")
        self._fields = "".join(f"{name}: {value}\r\n" for name, value in fields.items()
                               if name.lower() not in ("host", "content-length"))
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.read_timeout_s = read_timeout_s
        self.closed = False
        self._origins: dict[tuple[str, str, int], Origin] = {}
        self._targets: dict[str, tuple[Origin, bytes]] = {}
        self._ssl = ssl_context  # None: ``ssl.create_default_context()`` at the first https URL

    def post(self, url: str, data: bytes) -> RequestContext:
        return RequestContext(self, url, data)

    def target(self, url: str) -> tuple[Origin, bytes]:
        """The origin of ``url`` and the request's bytes up to the ``Content-Length`` value (made once per URL)."""
        got = self._targets.get(url)
        if got is not None:
            return got
        if self.closed:
            raise aiohttp.ClientConnectionError("the client was closed")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as e:
            raise aiohttp.InvalidURL(url, str(e)) from e
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise aiohttp.InvalidURL(url, "not an http(s) URL with a host")
        host = parts.hostname
        port = port or (443 if scheme == "https" else 80)
        key = (scheme, host, port)
        origin = self._origins.get(key)
        if origin is None:
            if scheme == "https" and self._ssl is None:
                self._ssl = ssl.create_default_context()
            origin = self._origins[key] = Origin(self, host, port, self._ssl if scheme == "https" else None)
        path = quote(parts.path or "/", safe=_SAFE_PATH)
        if parts.query:
            path += "?" + quote(parts.query, safe=_SAFE_QUERY)
        host_field = parts.netloc.rpartition("@")[2]
        auth = ""
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            auth = f"Authorization: Basic {b64encode(pair.encode()).decode()}\r\n"
        prefix = (f"POST {path} HTTP/1.1\r\nHost: {host_field}\r\n{self._fields}{auth}Content-Length: "
                  .encode())
        got = self._targets[url] = (origin, prefix)
        return got

    async def close(self) -> None:
        self.closed = True
        for origin in self._origins.values():
            origin.close()
        self._origins.clear()
        self._targets.clear()
        await asyncio.sleep(0)  # the transports' close callbacks run
