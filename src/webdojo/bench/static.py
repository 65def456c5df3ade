"""A tiny threaded static file server on 127.0.0.1 for benchmarks (port 0: any free port)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path
from types import TracebackType

from webdojo.local_http import LoopbackHTTPServer


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per request would drown the benchmark's output

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # every navigation pays for its load
        super().end_headers()


class StaticServer:
    """``with StaticServer(directory) as server: server.url("a.html")``."""

    def __init__(self, directory: str | Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self._server = LoopbackHTTPServer(handler, name="webdojo-bench-pages")

    @property
    def base_url(self) -> str:
        return self._server.base_url + "/"

    def url(self, path: str) -> str:
        return self.base_url + path.lstrip("/")

    def __enter__(self) -> StaticServer:
        self._server.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.close()
