"""Recording: every request a browser context makes, with the response it got.

Attached to one Playwright context. Routing lets through only requests to the hosts the
recording was pointed at and aborts the rest (counted in ``blocked``), so a recording never
wanders onto the wider network; routing also turns off the HTTP cache, so every request is
seen. The exchanges themselves are taken from the context's ``requestfinished`` events: the
browser's own network stack fetched them (so Chromium's host-resolver rules apply) and the
bodies come back decoded. WebSocket frames are not recorded: a socket to an allowed host is
passed through while recording and never opens during replay.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Request, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from webdojo.background import Background
from webdojo.cache.archive import ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.quiet import InFlight
from webdojo.cache.record_spec import RecordSpec

_RECORDED_SCHEMES = ("http", "https")


def host_allowed(url: str, allowed: frozenset[str] | None) -> bool:
    """Whether a URL's host is one the recording may talk to (``None``: any host)."""
    host = (urlsplit(url).hostname or "").lower()
    return allowed is None or host in allowed


class Recorder:
    """``await Recorder(allowed).attach(context)``; after the pages are done,
    ``await recorder.finish()`` returns the exchanges in the order they were sent."""

    def __init__(self, allowed_hosts: frozenset[str] | None, visit: int = 0) -> None:
        self.allowed = allowed_hosts
        self.visit = visit
        self.blocked: Counter[str] = Counter()  # host -> aborted requests
        self.failed: list[str] = []  # requests the network failed (not recorded)
        self.in_flight = InFlight()
        self._seq: dict[Request, tuple[int, float]] = {}
        self._exchanges: list[Exchange] = []
        self._reads = Background()

    async def attach(self, context: BrowserContext) -> None:
        context.on("request", self._on_request)
        context.on("requestfinished", self._on_finished)
        context.on("requestfailed", self._on_failed)
        await context.route("**/*", self._route)
        await context.route_web_socket("**/*", self._websocket)

    async def _route(self, route: Route) -> None:
        url = route.request.url
        with contextlib.suppress(PlaywrightError):  # the page may be gone already
            if urlsplit(url).scheme in _RECORDED_SCHEMES and not host_allowed(url, self.allowed):
                self.blocked[urlsplit(url).hostname or ""] += 1
                await route.abort("blockedbyclient")
            else:
                await route.continue_()

    async def _websocket(self, ws: WebSocketRoute) -> None:
        if host_allowed(ws.url, self.allowed):
            ws.connect_to_server()
        else:
            self.blocked[urlsplit(ws.url).hostname or ""] += 1
            await ws.close(code=1008, reason="webdojo: host not recorded")

    def _on_request(self, request: Request) -> None:
        if urlsplit(request.url).scheme in _RECORDED_SCHEMES:
            self._seq[request] = (len(self._seq), time.time())
            self.in_flight.start()

    def _on_failed(self, request: Request) -> None:
        if self._seq.pop(request, None) is not None:
            self.failed.append(f"{request.method} {request.url}: {request.failure}")
            self.in_flight.stop()

    def _on_finished(self, request: Request) -> None:
        if request not in self._seq:
            return
        self._reads.spawn(self._read(request))

    async def _read(self, request: Request) -> None:
        seq, started = self._seq.pop(request)
        try:
            exchange = await self._exchange(request, seq, started)
            if exchange is not None:
                self._exchanges.append(exchange)
        except PlaywrightError as exc:  # the context closed under us: the request is lost
            self.failed.append(f"{request.method} {request.url}: {exc.message.splitlines()[0]}")
        finally:
            self.in_flight.stop()

    async def _exchange(self, request: Request, seq: int, started: float) -> Exchange | None:
        response = await request.response()
        if response is None:
            return None
        req_headers = await request.headers_array()
        resp_headers = await response.headers_array()
        try:
            body = await response.body()
        except PlaywrightError:  # redirects and bodies the browser already dropped
            body = b""
        return Exchange(
            CapturedRequest(
                request.method.upper(),
                request.url.split("#", 1)[0],
                tuple((h["name"], h["value"]) for h in req_headers),
                request.post_data_buffer or b"",
            ),
            CapturedResponse(
                response.status,
                tuple((h["name"], h["value"]) for h in resp_headers),
                body,
                response.status_text,
            ),
            visit=self.visit,
            seq=seq,
            started=started,
        )

    async def finish(self, timeout_s: float = 10.0) -> list[Exchange]:
        """Wait for the bodies still being read; the exchanges in send order."""
        await self._reads.wait(timeout_s)
        return sorted(self._exchanges, key=lambda e: e.seq)


class RecordingSink:
    """One archive written by many sessions of a process: each session is one visit."""

    def __init__(self, spec: RecordSpec, source: str) -> None:
        self.spec = spec
        self.writer = ArchiveWriter(Path(spec.path), source=source, overwrite=True)
        self._visits = 0

    def recorder(self) -> Recorder:
        allowed = frozenset(self.spec.hosts) if self.spec.hosts is not None else None
        self._visits += 1
        return Recorder(allowed, visit=self._visits - 1)

    async def collect(self, recorder: Recorder) -> None:
        for exchange in await recorder.finish():
            self.writer.add(exchange)

    def close(self) -> None:
        self.writer.close()


_SINKS: dict[str, RecordingSink] = {}  # per process: a browser relaunched mid-run keeps writing


def recording_sink(spec: RecordSpec) -> RecordingSink:
    """The process's writer of ``spec.path``, opened (replacing an old archive) on first use."""
    if spec.path not in _SINKS:
        _SINKS[spec.path] = RecordingSink(spec, source="record sessions")
    return _SINKS[spec.path]


def finish_recording(path: str) -> bool:
    """Build the index and metadata of a recording; False when no session recorded into it."""
    sink = _SINKS.pop(path, None)
    if sink is None:
        return False
    sink.close()
    return True
