"""Replay as an HTTP proxy (``ReplayGate`` + ``replay_http``), spoken to over real sockets the
way Chromium speaks to a proxy: absolute-form requests, keep-alive, CONNECT and TLS."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.replay_gate import ReplayGate
from webdojo.cache.archive import Archive, ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.replayer import Replayer

TEXT = (("Content-Type", "text/plain"),)


def exchange(
    url: str,
    body: bytes,
    method: str = "GET",
    sent: bytes = b"",
    status: int = 200,
    headers: tuple[tuple[str, str], ...] = TEXT,
) -> tuple[CapturedRequest, CapturedResponse]:
    return CapturedRequest(method, url, (), sent), CapturedResponse(status, headers, body, "OK")


@pytest.fixture
def archive(tmp_path: Path) -> Archive:
    cookies = (("Content-Type", "text/plain"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"))
    with ArchiveWriter(tmp_path / "a", source="test") as writer:
        for n, e in enumerate(
            [
                exchange("http://shop.test/", b"home"),
                exchange("http://shop.test/cookies", b"two", headers=cookies),
                exchange("http://shop.test/cart", b"one", "POST", b"item=1"),
                exchange("http://shop.test/cart", b"two", "POST", b"item=2"),
                exchange("http://shop.test/same", b"", status=304),
                exchange("https://secure.test/account", b"secret page"),
            ]
        ):
            writer.add(Exchange(*e, seq=n, started=1_700_000_000.0 + n))
    opened = Archive.open(tmp_path / "a")
    yield opened
    opened.close()


@pytest.fixture
async def gate(archive: Archive) -> AsyncIterator[ReplayGate]:
    gate = await ReplayGate(NetworkPolicy(), Replayer(archive)).start()
    yield gate
    await gate.aclose()


_WRITERS: list[asyncio.StreamWriter] = []


@pytest.fixture(autouse=True)
async def _close_connections() -> AsyncIterator[None]:
    yield
    while _WRITERS:
        writer = _WRITERS.pop()
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()


async def connect(gate: ReplayGate) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    port = int(gate.proxy["server"].rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    _WRITERS.append(writer)
    return reader, writer


async def exchange_once(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[bytes, bytes]:
    """Send one request; the response's head and body (by its Content-Length)."""
    writer.write(request)
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    lines = head.lower().split(b"\r\n")
    length = next((int(x.split(b":")[1]) for x in lines if x.startswith(b"content-length:")), 0)
    body = await asyncio.wait_for(reader.readexactly(length), 5) if length else b""
    return head, body


def get(url: str, method: str = "GET", body: bytes = b"", extra: str = "") -> bytes:
    host = url.split("/")[2]
    head = f"{method} {url} HTTP/1.1\r\nHost: {host}\r\nProxy-Connection: keep-alive\r\n{extra}"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


async def test_absolute_form_requests_are_served_on_one_kept_alive_connection(
    gate: ReplayGate,
) -> None:
    reader, writer = await connect(gate)
    head, body = await exchange_once(reader, writer, get("http://shop.test/"))
    assert head.startswith(b"HTTP/1.1 200") and body == b"home"
    _, two = await exchange_once(reader, writer, get("http://shop.test/cart", "POST", b"item=2"))
    _, one = await exchange_once(reader, writer, get("http://shop.test/cart", "POST", b"item=1"))
    assert (one, two) == (b"one", b"two")  # the recorded POST whose body matches
    head, _ = await exchange_once(reader, writer, get("http://shop.test/cookies"))
    assert head.count(b"Set-Cookie: ") == 2  # repeated headers stay separate lines
    stats = gate.replayer.stats
    assert stats.requests == stats.served == 4 and stats.misses == 0


async def test_head_and_304_carry_no_body(gate: ReplayGate) -> None:
    reader, writer = await connect(gate)
    writer.write(get("http://shop.test/", "HEAD"))  # a miss (GET was recorded): a 404's head
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 404") and b"content-length: 60" in head.lower()
    head, body = await exchange_once(reader, writer, get("http://shop.test/same"))
    assert head.startswith(b"HTTP/1.1 304") and body == b""
    assert b"content-length" not in head.lower()
    _, body = await exchange_once(reader, writer, get("http://shop.test/"))
    assert body == b"home"  # the connection is still in step after both


async def test_a_host_outside_the_archive_gets_no_answer_and_is_counted_once(
    gate: ReplayGate,
) -> None:
    reader, writer = await connect(gate)
    await exchange_once(reader, writer, get("http://shop.test/"))
    # on a connection that already answered, the browser would send it again on a fresh one
    writer.write(get("http://elsewhere.test/"))
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert gate.replayer.stats.aborted_outbound == 0
    reader, writer = await connect(gate)
    writer.write(get("http://elsewhere.test/"))
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert gate.replayer.stats.aborted_outbound == 1
    assert gate.blocks[-1].host == "elsewhere.test"
    assert gate.refused("net::ERR_EMPTY_RESPONSE at http://elsewhere.test/")
    reader, writer = await connect(gate)
    writer.write(b"CONNECT elsewhere.test:443 HTTP/1.1\r\nHost: elsewhere.test:443\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.1 403")
    assert gate.replayer.stats.aborted_outbound == 2


async def test_a_tunnel_to_a_recorded_host_ends_tls_here(gate: ReplayGate) -> None:
    reader, writer = await connect(gate)
    writer.write(b"CONNECT secure.test:443 HTTP/1.1\r\nHost: secure.test:443\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 200")
    client = ssl.create_default_context()
    client.check_hostname, client.verify_mode = False, ssl.CERT_NONE
    await writer.start_tls(client, server_hostname="secure.test")
    request = b"GET /account HTTP/1.1\r\nHost: secure.test\r\n\r\n"
    head, body = await exchange_once(reader, writer, request)
    assert head.startswith(b"HTTP/1.1 200") and body == b"secret page"
    assert gate.replayer.stats.served == 1


async def test_a_preflight_is_allowed_without_asking_the_archive(gate: ReplayGate) -> None:
    reader, writer = await connect(gate)
    asked = (
        "Origin: http://www.shop.test\r\nAccess-Control-Request-Method: POST\r\n"
        "Access-Control-Request-Headers: content-type,x-csrf-token\r\n"
    )
    head, _ = await exchange_once(
        reader, writer, get("http://shop.test/cart", "OPTIONS", extra=asked)
    )
    text = head.decode().lower()
    assert text.startswith("http/1.1 204")
    assert "access-control-allow-origin: http://www.shop.test" in text
    assert "access-control-allow-headers: content-type,x-csrf-token" in text
    assert "access-control-allow-credentials: true" in text
    stats = gate.replayer.stats
    assert stats.preflights == 1 and stats.requests == 0 and stats.misses == 0


async def test_malformed_http_gets_a_400_and_the_gate_goes_on(gate: ReplayGate) -> None:
    reader, writer = await connect(gate)
    writer.write(b"\x00\x01 not http at all\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.1 400")
    reader, writer = await connect(gate)
    _, body = await exchange_once(reader, writer, get("http://shop.test/"))
    assert body == b"home"


async def test_closing_the_gate_closes_its_connections(archive: Archive) -> None:
    gate = await ReplayGate(NetworkPolicy(), Replayer(archive)).start()
    reader, writer = await connect(gate)
    await exchange_once(reader, writer, get("http://shop.test/"))
    await gate.aclose()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    await gate.aclose()  # idempotent
