"""Fixtures for server tests: a tiny test site, in-thread servers, and a real server process.

* ``test_site``: a 127.0.0.1 HTTP handler serving ``/counter.html`` (a button that counts its
  clicks in localStorage, so a second click would show), ``/slow`` (a page that never
  finishes loading: the handler holds the connection until teardown) and ``/plain.html``.
* ``make_server``: ``create_app`` over an ``InlinePool`` under real uvicorn in a thread, with
  the settings a test needs (short leases, small limits). Its sessions may reach the test
  site (its origin allowed, as an operator's ``--allow-host`` would).
* ``server_process``: ``python -m webdojo.cli serve --workers 0`` as a child process,
  with a bearer token, room for 3 sessions and ``--allow-host`` for the test site.
* ``site``: the worker and pool tests' site (``_pool_fixtures.py``), one per test module.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _pool_fixtures import Site, serve_site

from webdojo.asgi import ThreadServer
from webdojo.browser.options import SessionOptions
from webdojo.local_http import LoopbackHTTPServer
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.child_process import ServerProcess
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.loader import TaskSet, load_spec

TOKEN = "test-token-0123456789"
HANG_S = 120.0  # how long /slow holds its connection (released at teardown)
# deadlines short enough for the hung-navigation tests, long enough for a loaded 2-core box
FAST = SessionOptions(action_timeout_s=10.0, navigation_timeout_s=5.0, popup_wait_s=1.0)

PAGES = {
    "/counter.html": b"""<!doctype html><html><head><title>Counter</title></head><body>
<button id="inc" style="width:200px;height:80px"
  onclick="const n = (+localStorage.getItem('count') || 0) + 1;
           localStorage.setItem('count', String(n));
           document.getElementById('out').textContent = String(n);">add one</button>
<p id="out">0</p></body></html>""",
    "/plain.html": b"<!doctype html><title>Plain</title><h1>plain page</h1><p>text</p>",
}


class _Handler(http.server.BaseHTTPRequestHandler):
    stop: threading.Event
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/slow":
            self.stop.wait(HANG_S)  # never answers: the navigation cannot finish
            return
        body = PAGES.get(path)
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def test_site() -> Iterator[str]:
    stop = threading.Event()
    handler = type("Handler", (_Handler,), {"stop": stop})
    server = LoopbackHTTPServer(handler).start()
    yield server.base_url
    stop.set()
    server.close()


@pytest.fixture(scope="session")
def builtin_tasks() -> TaskSet:
    return load_spec("builtin")


@pytest.fixture(scope="session")
def make_server(builtin_tasks: TaskSet, test_site: str) -> Iterator[Callable[..., ThreadServer]]:
    """Start servers (one Chromium each) that stop when the test session ends."""
    started: list[ThreadServer] = []

    def make(**settings: Any) -> ThreadServer:
        settings.setdefault("session", FAST.allowing(test_site))
        app = create_app(InlinePool(), builtin_tasks, ServerSettings(**settings))
        server = ThreadServer(app).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def app_server(make_server: Callable[..., ThreadServer]) -> ThreadServer:
    """An in-thread server without a token, room for 3 sessions."""
    return make_server(max_sessions=3)


@pytest.fixture(scope="session")
def server_token() -> str:
    return TOKEN


@pytest.fixture(scope="session")
def server_process(test_site: str) -> Iterator[ServerProcess]:
    args = ["--workers", "0", "--max-sessions", "3", "--token", TOKEN]
    args += ["--navigation-timeout", "5", "--action-timeout", "10", "--allow-host", test_site]
    with ServerProcess(args) as server:
        yield server


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s
