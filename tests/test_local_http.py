"""The loopback HTTP server helper: binds before it serves, closes cleanly in any state, and
says nothing when a client hangs up."""

from __future__ import annotations

import http.server
import socket
import struct
import threading
from typing import ClassVar

import httpx
import pytest

from webdojo.local_http import LoopbackHTTPServer


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_serves_on_loopback_and_closes_twice() -> None:
    with LoopbackHTTPServer(_Hello) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        assert httpx.get(server.base_url + "/x").text == "hello"
    server.close()  # idempotent


def test_close_before_start_does_not_hang() -> None:
    server = LoopbackHTTPServer(_Hello)
    server.close()


class _Slow(http.server.BaseHTTPRequestHandler):
    """Answers only once the test says its client is gone, with more than socket buffers hold."""

    size = 16 << 20
    arrived = threading.Event()
    gone = threading.Event()
    threads: ClassVar[list[threading.Thread]] = []

    def do_GET(self) -> None:
        self.threads.append(threading.current_thread())
        self.arrived.set()
        self.gone.wait(5)
        if self.path == "/fail":
            raise ValueError("a handler's own bug")
        self.send_response(200)
        self.send_header("Content-Length", str(self.size))
        self.end_headers()
        for _ in range(self.size >> 16):
            self.wfile.write(b"x" * (1 << 16))

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize(("path", "printed"), [("/", False), ("/fail", True)])
def test_a_client_that_hangs_up_prints_nothing_but_a_handler_error_does(
    capfd: pytest.CaptureFixture[str], path: str, printed: bool
) -> None:
    _Slow.arrived.clear()
    _Slow.gone.clear()
    _Slow.threads.clear()
    with LoopbackHTTPServer(_Slow) as server:
        client = socket.create_connection(server.httpd.server_address[:2])
        client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert _Slow.arrived.wait(10)  # the request reached its handler
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset: the handler's writes fail
        _Slow.gone.set()
        _Slow.threads[0].join(10)  # its error handled, whatever it printed
    err = capfd.readouterr().err
    assert ("Traceback" in err) is printed, err
