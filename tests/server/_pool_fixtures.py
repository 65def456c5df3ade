"""Helpers for the worker and local-pool tests: a tiny site on 127.0.0.1 and polling.

Pages:
* ``/page``       a counter button (``#count``) and a link to ``/two``;
* ``/two``        a second page;
* ``/hang/KEY``   answers only once the test calls ``site.release(KEY)`` (or at teardown): a
  navigation that holds its queue slot for exactly as long as the test wants, with no timing;
* ``/slow``       never answers (until teardown): a navigation that must time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import threading
import time
from collections.abc import Awaitable, Callable, Iterator

from webdojo.browser.options import SessionOptions
from webdojo.local_http import LoopbackHTTPServer

# Short deadlines so that a test that goes wrong fails in seconds (the machine is shared and
# slow: keep them well above what a healthy step takes).
FAST = SessionOptions(action_timeout_s=10.0, navigation_timeout_s=10.0, popup_wait_s=1.0)
# For navigations that hang on purpose: long enough never to time out before the release.
PATIENT = SessionOptions(action_timeout_s=10.0, navigation_timeout_s=60.0, popup_wait_s=1.0)

PAGE = b"""<!doctype html><html><head><title>Counter</title></head><body>
<button id="count" onclick="this.textContent = Number(this.textContent) + 1">0</button>
<a id="next" href="/two">next</a></body></html>"""
TWO = b"<!doctype html><html><head><title>Page two</title></head><body><p>two</p></body></html>"


class Site:
    def __init__(self) -> None:
        self._events: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.stop = threading.Event()
        self.url = ""

    def event(self, key: str) -> threading.Event:
        with self._lock:
            return self._events.setdefault(key, threading.Event())

    def release(self, key: str) -> None:
        self.event(key).set()

    def page(self, path: str = "page") -> str:
        return f"{self.url}/{path}"


def _handler(site: Site) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/hang/"):
                event = site.event(self.path.removeprefix("/hang/"))
                while not (event.wait(0.2) or site.stop.is_set()):
                    pass
                body = PAGE
            elif self.path.startswith("/slow"):
                site.stop.wait(120)
                return
            else:
                body = TWO if self.path.startswith("/two") else PAGE
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def serve_site() -> Iterator[Site]:
    site = Site()
    server = LoopbackHTTPServer(_handler(site)).start()
    site.url = server.base_url
    try:
        yield site
    finally:
        site.stop.set()
        server.close()


async def wait_until(
    condition: Callable[[], bool | Awaitable[bool]], what: str, timeout_s: float = 60.0
) -> None:
    """Poll until ``condition`` holds; the timeout only turns a hang into a clear failure."""
    deadline = time.monotonic() + timeout_s
    while True:
        result = condition()
        if not isinstance(result, bool):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.05)
