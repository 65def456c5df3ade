"""Replay on the wire: an HTTP/1.1 proxy protocol that answers from an archive.

A replay context's proxy is webdojo itself (``webdojo.browser.replay_gate``): the browser
sends every ``http://`` request to it in absolute form (``GET http://host/path``) over a few
shared connections, and asks for a tunnel (``CONNECT host:443``) before each ``https://``
connection. ``HttpConnection`` answers both right in the transport's callbacks (no coroutine,
no thread, no trip through Playwright's driver):

- a request to a host the ``Wire`` refuses gets no answer: the connection is cut, which the
  browser reports as a network error (``ERR_EMPTY_RESPONSE``); a refused tunnel gets a 403
  (``ERR_TUNNEL_CONNECTION_FAILED``);
- inside an admitted tunnel, TLS ends here (``replay_tls``) and the requests that follow are
  ``https://`` requests to the tunnel's host;
- ``Wire.answer`` returns the response, or None when the request must fail (a damaged
  record): the connection is cut, a network error of that one request.

CORS preflights reach the wire too, where Playwright's route never showed them (the browser
answered them itself for routed requests, so recordings hold none): ``preflight`` answers
them the same way, allowing what the request asks for.
"""

from __future__ import annotations

import asyncio
from typing import Protocol
from urllib.parse import urlsplit

import h11

from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Headers, header
from webdojo.cache.replay_tls import TLS_RECORD_HANDSHAKE, TlsClosed, TlsSession

_NO_BODY = frozenset({204, 304})
_MAX_HEADER_BYTES = 256 * 1024  # a request head larger than this is refused (400)
_DEFAULT_PORTS = {"http": 80, "https": 443}
# headers the browser adds for the proxy: the site would never have seen them
_TO_THE_PROXY = frozenset({b"proxy-connection", b"proxy-authorization"})


class Wire(Protocol):
    """What a connection asks its replay."""

    def admit(self, host: str, port: int, what: str, retried: bool) -> bool:
        """Whether ``host`` is served at all (``what``: the request or tunnel, to log).
        ``retried``: the browser will send this request again on a fresh connection (it does
        when a connection it reused closes without an answer), so count it then, not now."""
        ...

    def answer(self, request: CapturedRequest, resource_type: str) -> CapturedResponse | None:
        """The response, or None when the request must fail."""
        ...


def resource_type(headers: Headers) -> str:
    """The browser's resource type as far as replay needs it: "ping" for a beacon or a link's
    ping, whose answer the page never reads (Playwright names it; on the wire, ``<a ping>``
    says so itself, and ``sendBeacon`` is a no-cors request with no destination)."""
    if header(headers, "ping-to") is not None or header(headers, "content-type") == "text/ping":
        return "ping"
    if header(headers, "sec-fetch-dest") == "empty" and header(headers, "sec-fetch-mode") == (
        "no-cors"
    ):
        return "ping"
    return ""


def is_preflight(request: CapturedRequest) -> bool:
    return request.method == "OPTIONS" and bool(
        header(request.headers, "access-control-request-method")
    )


def preflight(request: CapturedRequest) -> CapturedResponse:
    """Allow what a CORS preflight asks for: its origin with credentials, its method, its
    headers."""
    asked = request.headers
    allow = [
        ("Access-Control-Allow-Origin", header(asked, "origin") or "*"),
        ("Access-Control-Allow-Credentials", "true"),
        ("Access-Control-Allow-Methods", header(asked, "access-control-request-method") or ""),
        ("Access-Control-Max-Age", "600"),
        ("Vary", "Origin"),
    ]
    if wanted := header(asked, "access-control-request-headers"):
        allow.append(("Access-Control-Allow-Headers", wanted))
    if header(asked, "access-control-request-private-network"):
        allow.append(("Access-Control-Allow-Private-Network", "true"))
    return CapturedResponse(204, tuple(allow), b"", "No Content")


class HttpConnection(asyncio.Protocol):
    """One browser connection to the replay's proxy: requests in, recorded responses out."""

    def __init__(self, wire: Wire) -> None:
        self._wire = wire
        self._transport: asyncio.Transport | None = None
        self._h11 = _connection()
        self._tunnel: str | None = None  # "host:port" once a CONNECT was admitted
        self._tls: TlsSession | None = None
        self._fresh = True  # no request answered on this connection yet
        self._request: h11.Request | None = None
        self._body = bytearray()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if (
            self._tunnel is not None
            and self._tls is None
            and data[:1] == bytes([TLS_RECORD_HANDSHAKE])
        ):
            self._tls = TlsSession()
        if self._tls is not None:
            try:
                data, reply = self._tls.receive(data)
            except TlsClosed:
                self._close()
                return
            if reply:
                self._raw(reply)
        if data:
            self._h11.receive_data(data)
            self._events()

    def eof_received(self) -> bool:
        return False  # the browser is done with the connection: close it

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def close(self) -> None:
        self._close()

    # --- requests -------------------------------------------------------------------------

    def _events(self) -> None:
        while self._open():
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError:
                self._bad_request()
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._request, self._body = event, bytearray()
            elif isinstance(event, h11.Data):
                self._body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert self._request is not None
                if self._request.method == b"CONNECT":
                    self._connect(self._request)
                    return
                self._respond()
                if self._h11.our_state is not h11.DONE or self._h11.their_state is not h11.DONE:
                    self._close()  # Connection: close, or the answer was cut
                    return
                self._h11.start_next_cycle()
            else:  # ConnectionClosed
                self._close()
                return

    def _connect(self, request: h11.Request) -> None:
        """A tunnel to an admitted host becomes this connection: TLS (or plain HTTP) to it."""
        target = request.target.decode("latin-1")
        host, _, port = target.rpartition(":")
        if not port.isdigit() or not self._wire.admit(_unbracket(host), int(port), target, False):
            self._send(self._h11.send(h11.Response(status_code=403, headers=[])) or b"")
            self._close()
            return
        self._send(self._h11.send(h11.Response(status_code=200, headers=[])) or b"")
        trailing, _ = self._h11.trailing_data
        self._tunnel, self._h11 = target, _connection()
        if trailing:
            self.data_received(trailing)

    def _respond(self) -> None:
        request = self._request
        assert request is not None
        captured = self._captured(request)
        if self._tunnel is None:  # a plain-HTTP request names its host: admit it first
            parts = urlsplit(captured.url)
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 80)
            what = f"{captured.method} {captured.url}"
            if not self._wire.admit(parts.hostname or "", port, what, not self._fresh):
                self._abort()
                return
        self._fresh = False
        response = self._wire.answer(captured, resource_type(captured.headers))
        if response is None:
            self._abort()  # the request fails as a network error, the page goes on
            return
        self._write(response, head=captured.method == "HEAD")

    def _captured(self, request: h11.Request) -> CapturedRequest:
        headers = tuple(
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in request.headers
            if k not in _TO_THE_PROXY
        )
        target = request.target.decode("latin-1")
        if not target.startswith(("http://", "https://")):  # inside a tunnel: origin form
            scheme = "https" if self._tls is not None else "http"
            target = f"{scheme}://{header(headers, 'host') or self._tunnel or ''}{target}"
        method = request.method.decode("latin-1").upper()
        return CapturedRequest(method, target.split("#", 1)[0], headers, bytes(self._body))

    # --- responses ------------------------------------------------------------------------

    def _write(self, response: CapturedResponse, head: bool) -> None:
        status = response.status if 200 <= response.status <= 599 else 502
        headers = [(_encode(n), _encode(v)) for n, v in response.headers]
        if status not in _NO_BODY:
            headers.append((b"content-length", str(len(response.body)).encode()))
        try:
            out = self._h11.send(_response(status, headers, response.reason)) or b""
        except h11.LocalProtocolError:  # a recorded header HTTP/1.1 cannot carry: leave it out
            out = self._h11.send(_response(status, _valid(headers), response.reason)) or b""
        if response.body and not head and status not in _NO_BODY:
            out += self._h11.send(h11.Data(data=response.body)) or b""
        out += self._h11.send(h11.EndOfMessage()) or b""
        self._send(out)

    def _bad_request(self) -> None:
        body = b"webdojo replay: malformed HTTP request"
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
        self._send(b"HTTP/1.1 400 Bad Request\r\n" + _head(headers) + body)
        self._close()

    def _send(self, data: bytes) -> None:
        if self._tls is not None:
            data = self._tls.send(data)
        self._raw(data)

    def _raw(self, data: bytes) -> None:
        if self._transport is not None:
            self._transport.write(data)

    def _open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def _close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()


def _connection() -> h11.Connection:
    return h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEADER_BYTES)


def _unbracket(host: str) -> str:
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def _response(status: int, headers: list[tuple[bytes, bytes]], reason: str) -> h11.Response:
    return h11.Response(status_code=status, headers=headers, reason=_encode(reason))


def _valid(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    kept = []
    for pair in headers:
        try:
            h11.Response(status_code=200, headers=[pair])
        except h11.LocalProtocolError:
            continue
        kept.append(pair)
    return kept


def _head(headers: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(name + b": " + value + b"\r\n" for name, value in headers) + b"\r\n"


def _encode(text: str) -> bytes:
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")
