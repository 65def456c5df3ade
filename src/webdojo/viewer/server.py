"""Running the viewer app under uvicorn: blocking (the ``view`` command) or in a thread (tests).

The socket is bound here, before uvicorn starts, so that a busy port is a clear error and
``port=0`` yields the real port to print.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn

from webdojo.asgi import ThreadServer, run_blocking
from webdojo.viewer import DEFAULT_HOST

CLEANUP_S = 1.0  # at most this long after a stop for cancelled responses to let go


class _ClosingServer(uvicorn.Server):
    """uvicorn that, once stopped, closes what its graceful shutdown left open: connections
    to a browser still downloading a screenshot or waiting for a plot when the viewer stops,
    and the files their cancelled responses were reading. Left alone, they outlive the event
    loop and are closed by the garbage collector, later, with a ResourceWarning."""

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().serve(sockets)
        finally:
            for connection in list(self.server_state.connections):
                transport: Any = getattr(connection, "transport", None)
                if transport is not None:
                    transport.abort()
            pending = list(self.server_state.tasks)  # cancelled, still cleaning up
            if pending:
                await asyncio.wait(pending, timeout=CLEANUP_S)
            await asyncio.sleep(0)  # the aborted transports' sockets close on this turn


class ViewerServer(ThreadServer):
    """The viewer app on a bound socket: ``start()`` in a daemon thread, or ``run()`` here."""

    def __init__(self, app: Any, host: str = DEFAULT_HOST, port: int = 0) -> None:
        super().__init__(app, host, port, lifespan="off", timeout_graceful_shutdown=1)
        self._server = _ClosingServer(self._server.config)
        self.url += "/"  # the page itself; API paths are relative to it

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C)."""
        run_blocking(self._server, self.socket)
