"""``WireClient``: the lean HTTP/1.1 client under ``HttpEnv``, keep-alive over asyncio streams.

Why not httpx. Profiled under ``webdojo bench rollout`` (8 sessions stepping as fast as they
can through ``webdojo serve``), httpx's ``AsyncClient`` took about 2.5 ms of the client's 3 ms
of CPU per step: URL merging and parsing, the connection pool's bookkeeping (every pooled
connection polled for expiry on each request), anyio's stream wrappers, the response as an
async iterator of chunks. ``HttpEnv`` needs none of it: one server, a handful of routes, bodies
of known length. This client writes one request in one ``write`` and reads the head with one
``readuntil`` and the body with one ``readexactly``, about 0.1 ms per request.

What it does: HTTP/1.1 to one origin (http, or https with the default certificate checks),
persistent connections reused last-in first-out and dropped after ``keepalive_s`` idle (under
uvicorn's 75 s), ``Content-Length``, chunked and close-delimited bodies, one deadline per
request. It ignores proxy variables (``HTTP_PROXY``): the server is reached directly.

Errors are ``WireError``, whose ``sent`` says whether the request may have reached the server
(``False`` only when no connection could be made): ``HttpEnv`` retries what is safe to retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from webdojo.errors import ConfigError

# Read buffer of a connection, and the longest response head: a PNG screenshot fits without
# the transport pausing and resuming reads on the way in.
_BUFFER = 1 << 20


class WireError(Exception):
    """A request that got no complete response."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent  # False: no connection was made, the server never saw the request


@dataclass(frozen=True)
class WireResponse:
    status_code: int
    headers: dict[str, str]  # names in lower case
    content: bytes = field(repr=False)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = time.monotonic()

    def usable(self, keepalive_s: float) -> bool:
        """Still open (the server did not close it while it sat in the pool) and not so long
        idle that the server may be closing it right now."""
        fresh = time.monotonic() - self.idle_since < keepalive_s
        return fresh and not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class WireClient:
    """Requests to one origin. Close with ``aclose``."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str] | None = None,
        *,
        timeout_s: float = 120.0,
        max_connections: int = 1024,
        keepalive_s: float = 50.0,
    ) -> None:
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"not an http(s) server URL: {base_url!r}")
        self.host = url.hostname
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.prefix = url.path.rstrip("/")
        self._ssl = ssl.create_default_context() if url.scheme == "https" else None
        netloc = url.netloc.rpartition("@")[2]  # no credentials in Host
        fixed = {"host": netloc, **{k.lower(): v for k, v in (headers or {}).items()}}
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self.timeout_s = timeout_s
        self.keepalive_s = keepalive_s
        self._idle: list[_Conn] = []
        self._slots = asyncio.Semaphore(max_connections)
        self._closed = False

    async def request(
        self,
        method: str,
        path: str,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> WireResponse:
        if self._closed:
            raise WireError("the client is closed", sent=False)
        async with self._slots:
            conn = await self._connect()
            done = False
            try:
                async with asyncio.timeout(self.timeout_s):
                    self._send(conn, method, path, content, headers)
                    response, keep = await _read_response(conn.reader, method)
                done = True
            except TimeoutError as exc:
                raise WireError(f"no response within {self.timeout_s} s", sent=True) from exc
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                raise WireError(f"{type(exc).__name__}: {exc}", sent=True) from exc
            except ValueError as exc:  # a head we cannot parse
                raise WireError(f"bad response: {exc}", sent=True) from exc
            finally:
                if done and keep and not self._closed:
                    conn.idle_since = time.monotonic()
                    self._idle.append(conn)
                else:  # failed, cancelled or close-delimited: its state is unknown
                    conn.close()
        return response

    def _send(
        self,
        conn: _Conn,
        method: str,
        path: str,
        content: bytes | None,
        headers: dict[str, str] | None,
    ) -> None:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        length = f"content-length: {len(content)}\r\n" if content is not None else ""
        head = f"{method} {self.prefix}{path} HTTP/1.1\r\n{self._fixed}{extra}{length}\r\n"
        conn.writer.write(head.encode("latin-1") + (content or b""))

    async def _connect(self) -> _Conn:
        while self._idle:
            conn = self._idle.pop()
            if conn.usable(self.keepalive_s):
                return conn
            conn.close()
        try:
            async with asyncio.timeout(min(self.timeout_s, 30.0)):
                reader, writer = await asyncio.open_connection(
                    self.host, self.port, ssl=self._ssl, limit=_BUFFER
                )
        except (OSError, TimeoutError) as exc:
            what = "timed out" if isinstance(exc, TimeoutError) else str(exc)
            raise WireError(
                f"cannot connect to {self.host}:{self.port}: {what}", sent=False
            ) from exc
        return _Conn(reader, writer)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


async def _read_response(reader: asyncio.StreamReader, method: str) -> tuple[WireResponse, bool]:
    """One response; and whether the connection can carry another request."""
    while True:
        status_line, headers = _parse_head(await reader.readuntil(b"\r\n\r\n"))
        version, _, rest = status_line.partition(" ")
        status = int(rest[:3])
        if status >= 200 or status == 101:
            break  # 1xx informational responses come before the real one
    keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
    if method == "HEAD" or status in (204, 304) or status < 200:
        body = b""
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:  # delimited by the server closing the connection
        body, keep = await reader.read(), False
    return WireResponse(status, headers, body), keep


def _parse_head(raw: bytes) -> tuple[str, dict[str, str]]:
    lines = raw.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        raise ValueError(f"not an HTTP response: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return lines[0], headers


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
