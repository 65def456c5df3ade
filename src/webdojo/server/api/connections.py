"""Connections a slow or confused client cannot stall the server with.

uvicorn closes a keep-alive connection that stays idle past its timeout after a response, but
nothing else: a connection that never sends a byte, or a request whose headers or body stop
half way (any byte cancels the idle timer), stays open for ever. About 1,100 such sockets from
one client, at a 1,024 open-file limit, made ``webdojo serve`` drop every new connection,
health checks included, before ``--token`` is even checked. ``guarded_http`` is uvicorn's
HTTP protocol with three bounds added:

* a request must arrive whole within ``read_timeout_s`` of its first byte, and a new
  connection must send its first request within that time too; past it the client gets a
  408 and the connection is closed;
* one client address may hold ``max_per_client`` connections at once; one more gets a 429 and
  is closed at once (``0``: no bound; behind a proxy every client has the proxy's address);
* bytes the HTTP parser refuses get our JSON error (400 ``malformed_http``), not uvicorn's
  plain text.

Idle keep-alive connections between requests keep uvicorn's own timeout (``make_server``
sets 75 s: clients hold their connection while the model thinks). A WebSocket (OpenEnv's
``/ws``) leaves the guard once upgraded: its protocol has its own pings and close.
"""

from __future__ import annotations

import asyncio
import importlib.util
import resource
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from webdojo.errors import (
    ConfigError,
    MalformedHttp,
    RequestReadTimeout,
    TooManyConnections,
    WebdojoError,
)
from webdojo.server.api.http_errors import error_body, error_headers

_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 429: b"Too Many Requests"}


@dataclass(frozen=True)
class ConnectionLimits:
    read_timeout_s: float = 10.0  # a request's bytes, first to last (and a new connection's first)
    max_per_client: int = 256  # connections one client address may hold; 0 = no bound

    def __post_init__(self) -> None:
        if self.read_timeout_s <= 0 or self.max_per_client < 0:
            raise ConfigError(
                f"--read-timeout must be positive and --max-connections-per-client 0 or more, "
                f"not {self.read_timeout_s:g} and {self.max_per_client}"
            )


if importlib.util.find_spec("httptools") is not None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
else:  # pragma: no cover - httptools is a dependency; h11 is uvicorn's fallback
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Base  # type: ignore[assignment]


def guarded_http(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools where it imports, else h11) under ``limits``; pass
    it as uvicorn's ``http``. Each call makes a class with its own count of connections per
    client, so two servers in one process do not share it."""
    namespace = {"limits": limits, "per_client": Counter()}
    return type("GuardedHttp", (GuardedHttp,), namespace)


class GuardedHttp(_Base):
    """uvicorn's HTTP protocol under ``limits``; ``guarded_http`` makes the class a server
    uses."""

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    per_client: ClassVar[Counter[str]] = Counter()  # open connections per client address
    _host = ""
    _counted = False  # whether this connection counts against its client's bound
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._host = self.client[0] if self.client else ""
        self.per_client[self._host] += 1
        self._counted = True
        if self.limits.max_per_client and self.per_client[self._host] > self.limits.max_per_client:
            held = self.limits.max_per_client
            refusal = TooManyConnections(
                f"{self._host} already holds {held} connections to this server (the bound "
                "per client address); reuse them, or close some",
                retry_after_s=1,
                limit=held,
            )
            self._answer(429, refusal)
            return
        self._arm_read_timer()  # the first request must come, as any request must

    def connection_lost(self, exc: Exception | None) -> None:
        self._drop_read_timer()
        self._forget()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._read_timer is None and self._between_requests():
            self._arm_read_timer()  # the first byte of a request
        super().data_received(data)
        if self._read_timer is not None and self._request_read():
            self._drop_read_timer()

    def handle_websocket_upgrade(self, *args: Any) -> None:
        self._drop_read_timer()
        self._forget()  # the WebSocket's protocol owns the transport from here
        super().handle_websocket_upgrade(*args)

    def send_400_response(self, msg: str) -> None:
        self._answer(400, MalformedHttp(f"the server could not parse the request: {msg}"))

    # --- internals ----------------------------------------------------------------------

    def _between_requests(self) -> bool:
        """No request of which the server has the headers and has not answered."""
        return self.cycle is None or self.cycle.response_complete

    def _request_read(self) -> bool:
        """The request's headers and all of its body arrived: the app has it now."""
        return not self._between_requests() and not self.cycle.more_body

    def _arm_read_timer(self) -> None:
        self._read_timer = self.loop.call_later(self.limits.read_timeout_s, self._read_timed_out)

    def _drop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self._between_requests() or self.cycle.more_body:  # still waiting on bytes
            seconds = f"{self.limits.read_timeout_s:g}"
            self._answer(408, RequestReadTimeout(f"the request did not arrive in {seconds} s"))

    def _forget(self) -> None:
        """Stop counting this connection against its client (once)."""
        if self._counted:
            self._counted = False
            self.per_client[self._host] -= 1
            if self.per_client[self._host] <= 0:
                del self.per_client[self._host]

    def _answer(self, status: int, exc: WebdojoError) -> None:
        """Our JSON error, then close: nothing more is read from this connection."""
        _write_error(self.transport, status, exc)


def _write_error(transport: asyncio.Transport, status: int, exc: WebdojoError) -> None:
    if transport.is_closing():
        return
    body = error_body(exc)
    headers = error_headers(exc) | {"content-length": str(len(body)), "connection": "close"}
    head = b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])
    head += b"".join(f"{k}: {v}\r\n".encode("latin-1") for k, v in headers.items())
    transport.write(head + b"\r\n" + body)
    transport.close()


def raise_open_file_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (the browsers it starts
    inherit it): a 1,024 soft limit is a common default and far below what a server of many
    sessions and clients holds. The new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return target
        except (ValueError, OSError):
            return soft
    return soft
