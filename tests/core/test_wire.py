"""The lean HTTP/1.1 client (``models/wire``) against real local servers: an aiohttp.web app for well-formed
responses (keep-alive, chunked, gzip / deflate) and a raw asyncio server for what a broken or hostile server does
(closing a kept-alive connection, a body cut short, a malformed status line, a head too long, silence), each with
the exception class aiohttp raises for it and the error the backend records."""

from __future__ import annotations

import asyncio
import gzip
import shutil
import socket
import ssl
import struct
import subprocess
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from reasoneval.core.values import GenParams, Prompt
from reasoneval.models.http_backend import HTTPOptions
from reasoneval.models.openai_compat import OpenAICompatBackend
from reasoneval.models.wire import Client, ProtocolError

ANSWER = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}'


def _client(**kw: Any) -> Client:
    return Client({"Content-Type": "application/json"}, kw.get("total", 10.0), kw.get("connect", 5.0),
                  kw.get("read"))


async def _web(handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> TestServer:
    app = web.Application()
    app.router.add_post("/{tail:.*}", handler)
    server = TestServer(app)
    await server.start_server()
    return server


def test_keep_alive_reuses_one_connection_and_sends_the_bytes_given() -> None:
    peers: list[Any] = []
    bodies: list[bytes] = []
    headers: list[Any] = []

    async def handler(request: web.Request) -> web.Response:
        assert request.transport is not None
        peers.append(request.transport.get_extra_info("peername"))
        bodies.append(await request.read())
        headers.append(request.headers)
        return web.Response(body=ANSWER, content_type="application/json")

    async def go() -> None:
        server = await _web(handler)
        client = _client()
        try:
            for i in range(5):
                async with client.post(str(server.make_url(f"/v1/x?n={i}")), b'{"i": %d}' % i) as resp:
                    assert resp.status == 200 and resp.content_type == "application/json"
                    assert resp.content_length == len(ANSWER) and await resp.read() == ANSWER
        finally:
            await client.close()
            await server.close()

    asyncio.run(go())
    assert len(set(peers)) == 1  # one connection, kept alive
    assert bodies == [b'{"i": %d}' % i for i in range(5)]
    assert headers[0]["Content-Type"] == "application/json" and headers[0]["Accept-Encoding"] == "gzip, deflate"


def test_chunked_and_streamed_bodies_arrive_whole_and_the_connection_is_kept() -> None:
    pieces = [b"data: {\"a\": %d}\n\n" % i for i in range(50)] + [b"x" * 70_000, b"data: [DONE]\n\n"]
    peers: list[Any] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        assert request.transport is not None
        peers.append(request.transport.get_extra_info("peername"))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for piece in pieces:
            await resp.write(piece)
            await asyncio.sleep(0)
        await resp.write_eof()
        return resp

    async def go() -> None:
        server = await _web(handler)
        client = _client()
        try:
            for _ in range(2):
                async with client.post(str(server.make_url("/s")), b"{}") as resp:
                    assert resp.headers.get("transfer-encoding") == "chunked" and resp.content_length is None
                    assert resp.content_type == "text/event-stream"
                    got = [chunk async for chunk in resp.content.iter_any()]
                    assert b"".join(got) == b"".join(pieces) and len(got) > 1
            async with client.post(str(server.make_url("/s")), b"{}") as resp:
                assert await resp.read() == b"".join(pieces)
        finally:
            await client.close()
            await server.close()

    asyncio.run(go())
    assert len(set(peers)) == 1


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "rawdeflate"])
def test_compressed_bodies_are_decoded_and_counted_raw(encoding: str) -> None:
    plain = ANSWER * 2000
    packed = {"gzip": gzip.compress(plain), "deflate": zlib.compress(plain),
              "rawdeflate": zlib.compressobj(6, zlib.DEFLATED, -15).compress(plain)}[encoding]
    if encoding == "rawdeflate":
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        packed = c.compress(plain) + c.flush()

    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=packed, headers={"Content-Encoding": encoding.removeprefix("raw"),
                                                  "Content-Type": "application/json"})

    async def go() -> None:
        server = await _web(handler)
        client = _client()
        try:
            async with client.post(str(server.make_url("/")), b"{}") as resp:
                assert await resp.read() == plain
                assert resp.content.total_raw_bytes == len(packed) < len(plain) // 10
            async with client.post(str(server.make_url("/")), b"{}") as resp:
                chunks = [c async for c in resp.content.iter_any()]
                assert b"".join(chunks) == plain and max(map(len, chunks)) <= 256 * 1024
        finally:
            await client.close()
            await server.close()

    asyncio.run(go())


# ---- a raw server: whatever bytes a test scripts, connection by connection

Script = Callable[[int, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _raw(script: Script) -> tuple[asyncio.Server, str, list[int]]:
    conns = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conns[0] += 1
        try:
            await script(conns[0], reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}", conns


async def _request_head(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    n = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    await reader.readexactly(n)
    return head


OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)


@pytest.mark.parametrize("how", ["close", "reset"])
def test_a_kept_alive_connection_closed_by_the_server_is_retried_once_on_a_fresh_one(how: str) -> None:
    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(OK)  # kept alive...
        await writer.drain()
        if n == 1:
            await _request_head(reader)  # ... but the next request on it is never answered: closed (or reset)
            if how == "reset":
                writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                           struct.pack("ii", 1, 0))
            return
        while True:
            await _request_head(reader)
            writer.write(OK)
            await writer.drain()

    async def go() -> list[int]:
        server, url, conns = await _raw(script)
        client = _client()
        try:
            for _ in range(3):
                async with client.post(url + "/v1/chat/completions", b"{}") as resp:
                    assert resp.status == 200 and await resp.read() == ANSWER
        finally:
            await client.close()
            server.close()
        return conns

    assert asyncio.run(go()) == [2]


def test_a_fresh_connection_closed_unanswered_is_server_disconnected_and_the_replica_down() -> None:
    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)  # then closed, nothing sent

    async def go() -> None:
        server, url, conns = await _raw(script)
        client = _client()
        try:
            with pytest.raises(aiohttp.ServerDisconnectedError):
                async with client.post(url + "/x", b"{}"):
                    pass
            assert conns == [1]  # not retried: the connection was fresh
            comp = await _backend_error(url)
            assert "cannot reach" in comp and "ServerDisconnectedError" in comp, comp
        finally:
            await client.close()
            server.close()

    asyncio.run(go())


async def _backend_error(url: str, **opts: Any) -> str:
    b = OpenAICompatBackend("openai-compat/m", "m", [url + "/v1"], None, 2,
                            HTTPOptions(max_retries=0, **{"timeout_s": 10.0, **opts}))
    try:
        comp = await b.generate(Prompt.chat("hi"), GenParams(max_tokens=8))
    finally:
        await b.aclose()
    assert comp.error is not None
    return comp.error


def _answering(data: bytes, then_close: bool = True) -> Script:
    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request_head(reader)
        writer.write(data)
        await writer.drain()
        if not then_close:
            await asyncio.sleep(30)

    return script


def _fails(data: bytes, exc: type[BaseException], then_close: bool = True, **kw: Any) -> str:
    async def go() -> str:
        server, url, _ = await _raw(_answering(data, then_close))
        client = _client(**kw)
        try:
            with pytest.raises(exc) as info:
                async with client.post(url + "/x", b"{}") as resp:
                    await resp.read()
            return str(info.value)
        finally:
            await client.close()
            server.close()

    return asyncio.run(go())


def test_a_body_cut_short_is_a_payload_error() -> None:
    msg = _fails(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\":", aiohttp.ClientPayloadError)
    assert "not completed" in msg and "489 bytes" in msg
    msg = _fails(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", aiohttp.ClientPayloadError)
    assert "chunked" in msg


def test_a_malformed_status_line_or_header_or_chunk_is_a_clear_protocol_error() -> None:
    assert "malformed status line b'SPDY/3 200 OK'" in _fails(b"SPDY/3 200 OK\r\n\r\n", ProtocolError)
    assert "malformed header line" in _fails(b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", ProtocolError)
    assert "malformed Content-Length" in _fails(b"HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n", ProtocolError)
    assert "malformed chunk size" in _fails(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                            ProtocolError)

    async def backend() -> str:
        server, url, _ = await _raw(_answering(b"HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n"))
        try:
            return await _backend_error(url)
        finally:
            server.close()

    error = asyncio.run(backend())
    assert "HTTP client error from" in error and "ProtocolError: malformed status line b'HTTP/1.1 2OO OK'" in error


def test_a_head_too_long_is_refused_without_waiting_for_its_end() -> None:
    head = b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"a" * 70_000  # never ended: the client must not wait
    assert "response head over 64 KiB" in _fails(head, ProtocolError, then_close=False)


def test_timeouts_and_a_refused_connection_have_aiohttp_classes_and_the_backend_names_them() -> None:
    silent = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"  # then silence
    _fails(silent, aiohttp.SocketTimeoutError, then_close=False, read=0.3)
    _fails(silent, TimeoutError, then_close=False, total=0.3)

    async def go() -> tuple[str, str]:
        server, url, _ = await _raw(_answering(silent, then_close=False))
        try:
            read = await _backend_error(url, read_timeout_s=0.3)
        finally:
            server.close()
        dead, _, _ = await _raw(_answering(b""))
        port = dead.sockets[0].getsockname()[1]
        dead.close()
        await dead.wait_closed()
        return read, await _backend_error(f"http://127.0.0.1:{port}")

    read, refused = asyncio.run(go())
    assert "read timeout after 0.3s" in read, read
    assert "cannot reach" in refused and "ClientConnectorError" in refused, refused


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def test_tls_verifies_the_certificate_by_default_and_speaks_https(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    peers: list[Any] = []

    async def handler(request: web.Request) -> web.Response:
        assert request.transport is not None and request.secure
        peers.append(request.transport.get_extra_info("peername"))
        return web.Response(body=gzip.compress(ANSWER), headers={"Content-Encoding": "gzip"})

    async def go() -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", handler)
        server = TestServer(app, scheme="https")
        await server.start_server(ssl=server_ctx)
        url = str(server.make_url("/v1/chat/completions"))
        assert url.startswith("https://")
        default = _client()
        trusting = Client({}, 10.0, 5.0, ssl_context=ssl.create_default_context(cafile=str(cert)))
        try:
            with pytest.raises(aiohttp.ClientConnectorCertificateError):  # a self-signed certificate: refused
                async with default.post(url, b"{}"):
                    pass
            for _ in range(3):
                async with trusting.post(url, b"{}") as resp:
                    assert resp.status == 200 and await resp.read() == ANSWER
        finally:
            await default.close()
            await trusting.close()
            await server.close()

    asyncio.run(go())
    assert len(peers) == 3 and len(set(peers)) == 1
