"""A threaded ``http.server`` on loopback: the built-in sites, benchmark pages and test sites.

``LoopbackHTTPServer(handler)`` binds at once (port 0: any free port, so ``base_url`` is known
before it serves), serves in a daemon thread from ``start()``, and stops with ``close()``;
``with LoopbackHTTPServer(handler) as server:`` does both. Request threads are daemons, so a
handler that holds its connection on purpose (a page that never loads) cannot block shutdown.
A client that hangs up before its response is written (a browser leaving a page, a closed
context) is normal here and prints nothing; any other error in a handler still prints its
traceback.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

LOOPBACK = "127.0.0.1"


class _QuietOnHangUp(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # broken pipe, reset by the peer
            return
        super().handle_error(request, client_address)


class LoopbackHTTPServer:
    def __init__(
        self,
        handler: Callable[..., BaseHTTPRequestHandler],
        host: str = LOOPBACK,
        port: int = 0,
        name: str = "webdojo-http",
    ) -> None:
        self.httpd = _QuietOnHangUp((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=name, daemon=True)

    @property
    def base_url(self) -> str:
        """``http://host:port``, without a trailing slash."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        """Serve from now on. Idempotent: a server that starts itself can still be used in a
        ``with`` block."""
        if self._thread.ident is None:
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port. Idempotent; fine before ``start``."""
        if self._thread.is_alive():
            self.httpd.shutdown()  # waits for serve_forever; it would block forever unstarted
            self._thread.join(timeout=5)
        self.httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
