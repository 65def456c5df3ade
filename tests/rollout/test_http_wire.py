"""``WireClient`` (HttpEnv's adapter over aiohttp): connection reuse and which failures count
as sent, against a hand-written loopback server; bodies whole from a real uvicorn server; a
clean close. Also ``asgi.fast_io``: uvloop and httptools for ``webdojo serve`` when they import."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from webdojo import asgi
from webdojo.asgi import ThreadServer
from webdojo.errors import ConfigError
from webdojo.rollout.http_wire import WireClient, WireError

Answer = Callable[[bytes], bytes | None]  # request head -> raw response (None: hang up)


class Server:
    """Answers each request on a connection with ``answer(head)``; counts connections."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.bodies: list[bytes] = []
        self.url = ""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(h.split(b":")[1])
                        for h in head.lower().split(b"\r\n")
                        if h.startswith(b"content-length")
                    ),
                    0,
                )
                self.bodies.append(await reader.readexactly(length))
                raw = self.answer(head)
                if raw is None:
                    break
                writer.write(raw)
                await writer.drain()
        writer.close()


def fixed(body: bytes, extra: str = "") -> bytes:
    return f"HTTP/1.1 200 OK\r\ncontent-length: {len(body)}\r\n{extra}\r\n".encode() + body


@pytest.fixture
async def client_for() -> AsyncIterator[Callable[..., WireClient]]:
    made: list[WireClient] = []

    def make(url: str, timeout_s: float = 5) -> WireClient:
        made.append(WireClient(url, {"accept": "application/msgpack"}, timeout_s=timeout_s))
        return made[-1]

    yield make
    for client in made:
        await client.aclose()


async def test_keep_alive_reuses_one_connection(client_for: Callable[..., WireClient]) -> None:
    async with Server(lambda head: fixed(b"\x00\xff binary" + head.split(b" ")[1])) as server:
        client = client_for(server.url + "/")  # a trailing slash does not double up
        for i in range(3):
            response = await client.request("POST", f"/p{i}", b'{"a":1}', {"x-n": str(i)})
            assert (
                response.status_code == 200
                and response.content == f"\x00\xff binary/p{i}".encode("latin-1")
                and response.headers["Content-Length"] == str(len(response.content))
            )
        assert server.connections == 1 and server.bodies == [b'{"a":1}'] * 3


async def test_failures_say_whether_the_request_was_sent(
    client_for: Callable[..., WireClient],
) -> None:
    with pytest.raises(WireError) as refused:
        await client_for("http://127.0.0.1:9").request("GET", "/")
    assert refused.value.sent is False
    async with Server(lambda head: None) as server:  # reads the request, then hangs up
        with pytest.raises(WireError) as dropped:
            await client_for(server.url).request("POST", "/step", b"{}")
        assert dropped.value.sent is True
    async with Server(lambda head: b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort") as server:
        with pytest.raises(WireError) as cut:  # the body never completes
            await client_for(server.url, timeout_s=0.5).request("POST", "/step", b"{}")
        assert cut.value.sent is True


async def test_a_closed_client_sends_nothing() -> None:
    async with Server(lambda head: fixed(b"ok")) as server:
        client = WireClient(server.url)
        assert (await client.request("GET", "/")).text == "ok"
        await client.aclose()
        with pytest.raises(WireError) as closed:
            await client.request("GET", "/")
        assert closed.value.sent is False and server.connections == 1
    with pytest.raises(ConfigError):
        WireClient("ftp://127.0.0.1/")


async def _streaming_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A response in many parts (so uvicorn sends it chunked) and one large fixed body."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/chunked":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for i in range(50):
            await send({"type": "http.response.body", "body": bytes([i]) * 1000, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    body = bytes(range(256)) * 8192  # 2 MiB, past the read buffer
    headers = [
        (b"content-type", b"application/msgpack"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 201, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def test_bodies_from_uvicorn_arrive_whole(client_for: Callable[..., WireClient]) -> None:
    with ThreadServer(_streaming_app) as server:
        client = client_for(server.url)
        chunked = await client.request("GET", "/chunked")
        assert chunked.content == b"".join(bytes([i]) * 1000 for i in range(50))
        big = await client.request("POST", "/big", b"x" * 100_000)
        assert big.status_code == 201 and big.content == bytes(range(256)) * 8192
        assert big.headers.get("content-type") == "application/msgpack"


def test_fast_io_prefers_uvloop_and_httptools(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    have = {name: importlib.util.find_spec(name) is not None for name in ("uvloop", "httptools")}
    expected = {
        "loop": "uvloop" if have["uvloop"] else "asyncio",
        "http": "httptools" if have["httptools"] else "h11",
    }
    assert asgi.fast_io() == expected
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert asgi.fast_io() == {"loop": "asyncio", "http": "h11"}  # clean fallback
