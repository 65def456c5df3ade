"""``WireClient`` (HttpEnv's HTTP/1.1 client) against a hand-written loopback server: bodies
by length, chunked and close-delimited, connection reuse, and which failures count as sent.
Also ``asgi.fast_io``: uvloop and httptools for ``webdojo serve`` when they import."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest

from webdojo import asgi
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
                        for h in head.split(b"\r\n")
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
                if b"connection: close" in raw.lower():
                    break
        writer.close()


def fixed(body: bytes, extra: str = "") -> bytes:
    return f"HTTP/1.1 200 OK\r\ncontent-length: {len(body)}\r\n{extra}\r\n".encode() + body


@pytest.fixture
async def client_for() -> AsyncIterator[Callable[[str], WireClient]]:
    made: list[WireClient] = []

    def make(url: str) -> WireClient:
        made.append(WireClient(url, {"accept": "application/msgpack"}, timeout_s=5))
        return made[-1]

    yield make
    for client in made:
        await client.aclose()


async def test_keep_alive_reuses_one_connection(client_for: Callable[[str], WireClient]) -> None:
    async with Server(lambda head: fixed(b"\x00\xff binary" + head.split(b" ")[1])) as server:
        client = client_for(server.url)
        for i in range(3):
            response = await client.request("POST", f"/p{i}", b'{"a":1}', {"x-n": str(i)})
            assert (
                response.status_code == 200
                and response.content == f"\x00\xff binary/p{i}".encode("latin-1")
            )
        assert server.connections == 1 and server.bodies == [b'{"a":1}'] * 3


async def test_chunked_and_close_delimited_bodies(client_for: Callable[[str], WireClient]) -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    close = b"HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\nall of it"
    answers = iter([chunked, close, fixed(b"again")])
    async with Server(lambda head: next(answers)) as server:
        client = client_for(server.url)
        assert (await client.request("GET", "/a")).content == b"abcde"
        gone = await client.request("GET", "/b")
        assert gone.status_code == 404 and gone.text == "all of it"
        assert (await client.request("GET", "/c")).content == b"again"
        assert server.connections == 2  # the close-delimited response ended its connection


async def test_failures_say_whether_the_request_was_sent(
    client_for: Callable[[str], WireClient],
) -> None:
    with pytest.raises(WireError) as refused:
        await client_for("http://127.0.0.1:9").request("GET", "/")
    assert refused.value.sent is False
    async with Server(lambda head: None) as server:  # reads the request, then hangs up
        with pytest.raises(WireError) as dropped:
            await client_for(server.url).request("POST", "/step", b"{}")
        assert dropped.value.sent is True


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
