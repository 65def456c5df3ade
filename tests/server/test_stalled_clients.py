"""``webdojo serve`` under slow and confused clients (issue 32): stalled requests are answered
408 and closed after the read timeout, a client past its connection bound gets 429 at once,
another client is still served meanwhile, and bytes that are not HTTP get our JSON error.
A real server process and real sockets on loopback."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from webdojo.bench.stalled_bench import run_stalled_bench
from webdojo.errors import ConfigError
from webdojo.server.api.connections import ConnectionLimits
from webdojo.server.child_process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

READ_TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def address() -> Iterator[tuple[str, int]]:
    args = ["--tasks", "builtin:login", "--read-timeout", f"{READ_TIMEOUT_S:g}"]
    with ServerProcess(args) as server:
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        yield host, int(port)


def _reply(sock: socket.socket, seconds: float = 30) -> tuple[int, dict[str, object], bool]:
    """The status and JSON body of one response; whether the server then closed."""
    sock.settimeout(seconds)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"closed without a response: {data!r}")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.lower().split(b"\r\n")
    length = int(next(line.split(b":")[1] for line in lines if line.startswith(b"content-length")))
    while len(body) < length:
        body += sock.recv(65536)
    closes = b"connection: close" in head.lower()
    return int(head.split(b" ")[1]), json.loads(body[:length]), closes


def test_bytes_that_are_not_http_get_a_json_error(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"HELLO THERE\r\n\r\n")
        status, body, closes = _reply(sock)
    assert status == 400 and closes
    assert body["error"]["code"] == "malformed_http"  # type: ignore[index]


HALF_BODY = (
    b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
    b'content-length: 100\r\n\r\n{"task_id"'
)


@pytest.mark.parametrize(
    "stall",
    [b"", b"GET /v1/health HTTP/1.1\r\nHost: x\r\n", HALF_BODY],
    ids=["nothing sent", "half the headers", "half the body"],
)
def test_a_stalled_request_is_answered_408_and_closed(
    address: tuple[str, int], stall: bytes
) -> None:
    with socket.create_connection(address) as sock:
        opened = time.monotonic()
        sock.sendall(stall)
        status, body, closes = _reply(sock)
        assert sock.recv(1) == b""  # closed
    assert status == 408 and closes
    assert body["error"]["code"] == "request_timeout"  # type: ignore[index]
    assert time.monotonic() - opened >= READ_TIMEOUT_S * 0.9  # not before its bound


def test_an_idle_keep_alive_connection_is_not_a_stalled_request(address: tuple[str, int]) -> None:
    """Between requests a client may think longer than the read timeout (a model's turn):
    only uvicorn's keep-alive timeout (75 s) applies there."""
    request = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(address) as sock:
        sock.sendall(request)
        assert _reply(sock)[0] == 200
        time.sleep(READ_TIMEOUT_S * 2)  # idle past the read timeout, not an assertion
        sock.sendall(request)
        status, _, closes = _reply(sock)
    assert status == 200 and not closes


def test_crowding_and_stalled_clients_leave_others_served() -> None:
    """The bench, small: past the bound every connection is refused at once, the held ones
    are closed after their read timeout, and another address is served meanwhile."""
    result = run_stalled_bench(connections=60, read_timeout_s=READ_TIMEOUT_S, max_per_client=24)
    assert result.statuses == {"429 too_many_connections": 36, "408 request_timeout": 24}
    assert len(result.health_ms) == 5 and len(result.create_ms) == 1  # all answered 2xx
    assert result.closed_after_s["408 request_timeout"] >= READ_TIMEOUT_S * 0.9


def test_bad_limits_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="read-timeout"):
        ConnectionLimits(read_timeout_s=0)
    with pytest.raises(ConfigError):
        ConnectionLimits(max_per_client=-1)
