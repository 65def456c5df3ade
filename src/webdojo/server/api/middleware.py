"""Two plain ASGI middlewares that run before any body is parsed: bearer auth and a body cap.

Plain ASGI rather than Starlette's ``BaseHTTPMiddleware``: that one wraps every response in a
stream and runs the app in a separate task (a measurable cost per step, and a client
disconnect would cancel the step half-way).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webdojo.errors import RequestTooLarge, Unauthorized, WebdojoError
from webdojo.server.api.http_errors import error_body, error_headers, status_for

OPEN_PATHS = frozenset({"/v1/health"})  # answered without a token (load balancer probes)
DRAIN_LIMIT = 64 * 1024 * 1024  # the most of an oversized body read (and dropped) before a 413


async def send_error(send: Send, exc: WebdojoError) -> None:
    body = error_body(exc)
    headers = error_headers(exc) | {"content-length": str(len(body)), "connection": "close"}
    await send(
        {
            "type": "http.response.start",
            "status": status_for(exc),
            "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """Every HTTP route but ``OPEN_PATHS`` needs ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str, on_error: Callable[[str], None]) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self._on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"authorization", b"")
        if not hmac.compare_digest(given, self._expected):  # constant time
            exc = Unauthorized(
                "missing or wrong bearer token (send 'Authorization: Bearer <token>')"
            )
            self._on_error(exc.code)
            await send_error(send, exc)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuses bodies over ``limit`` bytes with 413, before anything parses them.

    The body is read here, counting bytes as they arrive (chunked uploads declare no length),
    and handed to the app whole; requests are small, so buffering them costs nothing. Past the
    limit the rest of the body is read and dropped before the 413 goes out: a server that
    answers and closes while the client is still sending makes the client see a connection
    reset instead of the 413. Draining stops at ``DRAIN_LIMIT`` (a body declared bigger than
    that is refused unread), which bounds what an abusive client can make us read.
    """

    def __init__(self, app: ASGIApp, limit: int, on_error: Callable[[str], None]) -> None:
        self.app = app
        self.limit = limit
        self._on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in {"GET", "HEAD", "OPTIONS"}:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > DRAIN_LIMIT:
            await self._refuse(send, int(declared))
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more and size <= DRAIN_LIMIT:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client went away; nothing to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            more = bool(message.get("more_body", False))
            if size <= self.limit:
                chunks.append(chunk)
        if size > self.limit:
            await self._refuse(send, size)
            return
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _refuse(self, send: Send, size: int) -> None:
        exc = RequestTooLarge(
            f"the request body is over {self.limit} bytes", limit=self.limit, size_at_least=size
        )
        self._on_error(exc.code)
        await send_error(send, exc)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect, as ASGI apps expect

    return replay
