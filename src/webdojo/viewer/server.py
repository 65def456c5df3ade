"""Running the viewer app under uvicorn: blocking (the ``view`` command) or in a thread (tests).

The socket is bound here, before uvicorn starts, so that a busy port is a clear error and
``port=0`` yields the real port to print.
"""

from __future__ import annotations

from typing import Any

from webdojo.asgi import ThreadServer, run_blocking

DEFAULT_HOST = "127.0.0.1"  # loopback unless told otherwise
DEFAULT_PORT = 8600


class ViewerServer(ThreadServer):
    """The viewer app on a bound socket: ``start()`` in a daemon thread, or ``run()`` here."""

    def __init__(self, app: Any, host: str = DEFAULT_HOST, port: int = 0) -> None:
        super().__init__(app, host, port, lifespan="off", timeout_graceful_shutdown=1)
        self.url += "/"  # the page itself; API paths are relative to it

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C)."""
        run_blocking(self._server, self.socket)
