"""Running an ASGI app (the env server, the viewer) under uvicorn on a socket we bind.

Binding before uvicorn starts makes a busy port a clear error and lets ``port=0`` report the
real port. ``ThreadServer`` runs an app in a daemon thread (tests, benches, the viewer in
tests); ``run_blocking`` serves until interrupted (the CLI commands).
"""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
from typing import Any

import uvicorn

from webdojo.errors import ConfigError

LOOPBACK = "127.0.0.1"


def bind_tcp(host: str, port: int) -> socket.socket:
    """A listening TCP socket. ``proto=IPPROTO_TCP`` matters: asyncio turns Nagle off
    (TCP_NODELAY) only on sockets that say they are TCP, and accepted sockets copy the
    listener's proto. With proto 0, every response (headers and body are two writes) waited
    ~40 ms for a delayed ACK."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them
    sock.set_inheritable(True)
    return sock


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on ``host`` right now (for a child process, or a server started again
    and again on the same port, to bind later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}"


def fast_io() -> dict[str, str]:
    """uvicorn's event loop and HTTP parser for a server on the hot path: uvloop and httptools
    (C, both dependencies of webdojo) where they import, else asyncio and h11 (pure Python,
    always there). Measured on ``webdojo serve``: the HTTP hop's server-side CPU per step."""
    has = importlib.util.find_spec
    return {
        "loop": "uvloop" if has("uvloop") else "asyncio",
        "http": "httptools" if has("httptools") else "h11",
    }


def make_server(app: Any, log_level: str = "warning", **config: Any) -> uvicorn.Server:
    options: dict[str, Any] = {
        "log_level": log_level,
        "access_log": False,
        "timeout_graceful_shutdown": 5,
        "timeout_keep_alive": 75,  # clients keep connections between steps; do not churn them
        # WebSocket messages (OpenEnv's /ws) carry JPEGs, which do not compress: deflating a
        # step's observation cost 4.5 ms of the server's CPU, 7% of the step
        "ws_per_message_deflate": False,
    }
    return uvicorn.Server(uvicorn.Config(app, **(options | config)))


def run_blocking(server: uvicorn.Server, sock: socket.socket) -> None:
    """Serve until interrupted (Ctrl-C / SIGTERM run the app's shutdown)."""
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


class ThreadServer:
    """An app under uvicorn in a daemon thread of this process. The app's lifespan runs in
    that thread's event loop."""

    def __init__(
        self,
        app: Any,
        host: str = LOOPBACK,
        port: int = 0,
        log_level: str = "warning",
        **config: Any,
    ) -> None:
        self.socket = bind_tcp(host, port)
        self.url = url_of(self.socket)
        self.port = int(self.socket.getsockname()[1])
        self._server = make_server(app, log_level, **config)
        self._thread: threading.Thread | None = None

    def start(self, timeout_s: float = 60.0) -> ThreadServer:
        self._thread = threading.Thread(
            target=run_blocking, args=(self._server, self.socket), name="webdojo-asgi", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                self.stop()
                raise RuntimeError("the server did not start (see the log above)")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=30)

    def __enter__(self) -> ThreadServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
