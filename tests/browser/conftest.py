"""Fixtures for browser tests: a local HTTP server for ``site/`` and one shared Chromium.

The server binds 127.0.0.1 on port 0. Besides the static files it answers ``/slow`` (never
sends a response), ``/partial`` (half a page, then nothing: it never finishes loading),
``/sleep?ms=N`` (answers after N ms) and ``/attachment`` (a download). The first two make
navigations go past their deadline.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from browser_helpers import TEST_OPTIONS

from webdojo.browser import BrowserHost, BrowserSession
from webdojo.local_http import LoopbackHTTPServer

SITE = Path(__file__).parent / "site"
HANG_S = 60.0  # how long /slow and /partial hold their connection (released at teardown)


class _Handler(http.server.SimpleHTTPRequestHandler):
    stop: threading.Event

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        if self.path.startswith("/slow"):
            self.stop.wait(HANG_S)
            return
        if self.path.startswith("/sleep"):  # /sleep?ms=N: answer after N ms
            self.stop.wait(int(self.path.partition("ms=")[2] or 0) / 1000)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"slept")
            return
        if self.path.startswith("/attachment"):  # a navigation that becomes a download
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Disposition", 'attachment; filename="a.bin"')
            self.end_headers()
            self.wfile.write(b"0123456789")
            return
        if self.path.startswith("/partial"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><head><title>Partial</title></head><body><h1>partial</h1>")
            self.wfile.flush()
            self.stop.wait(HANG_S)
            return
        super().do_GET()


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    stop = threading.Event()
    handler = type("Handler", (_Handler,), {"stop": stop})
    server = LoopbackHTTPServer(functools.partial(handler, directory=str(SITE))).start()
    yield server.base_url + "/"
    stop.set()
    server.close()


@pytest.fixture(scope="session")
async def host() -> AsyncIterator[BrowserHost]:
    browser = await BrowserHost.launch()
    yield browser
    await browser.aclose()


@pytest.fixture
async def session(host: BrowserHost, base_url: str) -> AsyncIterator[BrowserSession]:
    s = await host.new_session(TEST_OPTIONS.allowing(base_url))  # the test site, as an env's
    yield s
    await s.aclose()
