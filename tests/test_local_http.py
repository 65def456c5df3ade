"""The loopback HTTP server helper: binds before it serves, closes cleanly in any state."""

from __future__ import annotations

import http.server

import httpx

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
