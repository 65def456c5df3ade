"""Replay: a browser context served entirely from an archive.

Every HTTP request of the context is answered from the archive (levels L0-L4,
``webdojo.cache.matcher``) or refused; none is ever sent to the network. Two ways in:

- **proxy** (the default): the context's HTTP proxy is the replay itself
  (``webdojo.browser.replay_gate``), and ``replay_http`` answers each request (HTTPS too,
  ending TLS itself) in this process, as the replayer's ``Wire``; a request or tunnel to any
  other host is refused there and counted (``aborted_outbound``). The browser loads the page
  over its own network stack, as it would a live site.
- **route**: Playwright's ``context.route`` hands every request to Python through the driver,
  a page load's requests one driver round trip each (``webdojo bench cache`` measures both).
  It stays for a context that was not created with the replay's proxy (``attach`` alone).

WebSockets are routed in both and never reach a server. A miss on a recorded host is a 404
from webdojo, a failed request, or (``strict``) a ``CacheMiss`` kept for the caller to raise.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from webdojo.cache.archive import Archive
from webdojo.cache.determinism import Determinism, apply, seed_for
from webdojo.cache.exchange import CapturedRequest, CapturedResponse
from webdojo.cache.freshen import freshen, fulfil_headers, rename_jsonp
from webdojo.cache.matcher import LEVELS, Match, Matcher
from webdojo.cache.quiet import InFlight
from webdojo.cache.replay_http import is_preflight, preflight
from webdojo.errors import ArchiveError, CacheMiss

OnMiss = Literal["404", "abort", "strict"]
Via = Literal["proxy", "route"]
NOT_RECORDED = "not in the replayed archive"  # the proxy's reason for refusing a host
_MAX_MISSES_KEPT = 200
_MAX_LOGGED = 10_000


@dataclass
class ReplayStats:
    requests: int = 0  # every HTTP(S) request the pages made
    served: int = 0  # answered from the archive (L0-L4)
    by_level: Counter[str] = field(default_factory=Counter)
    misses: int = 0  # on a recorded host, nothing matched
    aborted_outbound: int = 0  # to a host the archive does not hold: aborted, never sent
    websockets: int = 0  # sockets the pages opened (none ever connects)
    broken: int = 0  # matched, but the archive's record could not be read (failed requests)
    preflights: int = 0  # CORS preflights answered on the wire (not requests of the page)
    missed: list[dict[str, Any]] = field(default_factory=list)  # the first misses, with candidates
    log: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # method, url, L0-L4 | miss | aborted

    def note(self, method: str, url: str, outcome: str) -> None:
        """The outcome of one request (capped: a page that polls forever cannot grow it)."""
        if len(self.log) < _MAX_LOGGED:
            self.log.append((method, url, outcome))

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "served": self.served,
            "by_level": {level: self.by_level.get(level, 0) for level in LEVELS},
            "misses": self.misses,
            "aborted_outbound": self.aborted_outbound,
            "websockets": self.websockets,
            "broken": self.broken,
            "preflights": self.preflights,
        }

    def add(self, other: ReplayStats) -> None:
        self.requests += other.requests
        self.served += other.served
        self.by_level.update(other.by_level)
        self.misses += other.misses
        self.aborted_outbound += other.aborted_outbound
        self.websockets += other.websockets
        self.broken += other.broken
        self.preflights += other.preflights
        self.missed += other.missed[: max(0, _MAX_MISSES_KEPT - len(self.missed))]
        self.log += other.log[: max(0, _MAX_LOGGED - len(self.log))]


@dataclass
class ReplayOptions:
    on_miss: OnMiss = "404"  # what a miss on a recorded host gets
    max_level: int = 4  # highest matching level tried
    deterministic: bool = True  # seeded clock, randomness, no animations (determinism.py)
    keep_served: int = 0  # keep the first this many served matches in Replayer.served (checks)
    via: Via = "proxy"  # how requests reach the replay (module docstring)


class Replayer:
    """Serves one context from an archive; a new one per context, so that repeated requests
    replay in recorded order again for each episode."""

    def __init__(self, archive: Archive, options: ReplayOptions | None = None) -> None:
        self.archive = archive
        self.options = options or ReplayOptions()
        self.matcher = Matcher(archive.index, archive.rules, max_level=self.options.max_level)
        self.stats = ReplayStats()
        self.in_flight = InFlight()
        self.errors: list[CacheMiss] = []  # strict mode: the misses, for the caller to raise
        self.broken: list[str] = []  # why damaged records could not be served
        self.served: list[Match] = []  # options.keep_served: what was served for what request
        self._hosts = frozenset(canonical(h.split(":")[0]) for h, _, _ in archive.index.hosts())

    @property
    def proxied(self) -> bool:
        """Whether the context must be created with this replay as its proxy (a ``Wire``:
        ``admit`` and ``answer``)."""
        return self.options.via == "proxy"

    async def attach(self, context: BrowserContext) -> None:
        """The determinism aids, the WebSocket refusal and, ``via="route"``, the route."""
        if self.options.deterministic:
            meta = self.archive.meta
            await apply(context, Determinism(seed_for(meta.id), meta.epoch_ms))
        if not self.proxied:
            await context.route("**/*", self._route)
        await context.route_web_socket("**/*", self._websocket)

    def admit(self, host: str, port: int, what: str, retried: bool) -> bool:
        """Whether the proxy lets a request (or tunnel) to ``host`` in: only recorded hosts
        are. A refusal is counted as one request never sent (``webdojo.cache.replay_http``)."""
        if canonical(host) in self._hosts:
            return True
        if not retried:
            self.stats.requests += 1
            self.stats.aborted_outbound += 1
            method, _, url = what.partition(" ") if " " in what else ("CONNECT", "", what)
            self.stats.note(method, url, "aborted")
        return False

    def answer(self, request: CapturedRequest, resource_type: str = "") -> CapturedResponse | None:
        """The proxy's answer to a request to a recorded host (``reply``); a CORS preflight
        is allowed without asking the archive."""
        if is_preflight(request):
            self.stats.preflights += 1
            return preflight(request)
        self.in_flight.start()
        try:
            return self.reply(request, resource_type)
        finally:
            self.in_flight.stop()

    def reply(self, request: CapturedRequest, resource_type: str = "") -> CapturedResponse | None:
        """The response to serve for a request to a recorded host, counted and logged: the
        recorded one (L0-L4), a miss's 404, or None when the request must fail (a damaged
        record; a miss with ``on_miss="abort"``)."""
        self.stats.requests += 1
        match = self.matcher.match(request, resource_type=resource_type)
        try:
            response = self._response(match)
        except ArchiveError as exc:  # a damaged record: this request fails, the page goes on
            self.stats.broken += 1
            self.broken.append(str(exc))
            return None
        if response is None:
            return self._miss(request, match)
        self.stats.served += 1
        self.stats.by_level[match.level or ""] += 1
        self.stats.note(request.method, request.url, match.level or "")
        if len(self.served) < self.options.keep_served:
            self.served.append(match)
        return CapturedResponse(
            response.status, tuple(freshen(response.headers)), response.body, response.reason
        )

    async def _route(self, route: Route) -> None:
        self.in_flight.start()
        try:
            await self._answer_route(route)
        except PlaywrightError:
            pass  # the page went away while we answered: nothing to serve any more
        finally:
            self.in_flight.stop()

    async def _answer_route(self, route: Route) -> None:
        request = route.request
        parts = urlsplit(request.url)
        if parts.scheme not in ("http", "https"):
            await route.abort("blockedbyclient")
            return
        if canonical(parts.hostname or "") not in self._hosts:
            self.stats.requests += 1
            self.stats.aborted_outbound += 1
            self.stats.note(request.method, request.url, "aborted")
            await route.abort("blockedbyclient")
            return
        headers = await request.all_headers()
        captured = CapturedRequest(
            request.method.upper(),
            request.url.split("#", 1)[0],
            tuple(headers.items()),
            request.post_data_buffer or b"",
        )
        response = self.reply(captured, request.resource_type)
        if response is None:
            failed = "internetdisconnected" if self.options.on_miss == "abort" else "failed"
            await route.abort(failed)
            return
        await route.fulfill(
            status=response.status,
            headers=fulfil_headers(list(response.headers)),
            body=response.body,
        )

    def _response(self, match: Match) -> CapturedResponse | None:
        if match.synthesized is not None:
            return match.synthesized
        if match.entry is None or match.request is None:
            return None
        response = self.archive.response(match.entry)
        body = rename_jsonp(response.body, match.request, match.entry.normal())
        return CapturedResponse(response.status, response.headers, body, response.reason)

    def _miss(self, request: CapturedRequest, match: Match) -> CapturedResponse | None:
        self.stats.misses += 1
        self.stats.note(request.method, request.url, "miss")
        near = [
            {"url": c.entry.url, "score": c.score, "differences": [list(d) for d in c.differences]}
            for c in match.candidates
        ]
        if len(self.stats.missed) < _MAX_MISSES_KEPT:
            self.stats.missed.append(
                {"method": request.method, "url": request.url, "nearest": near}
            )
        if self.options.on_miss == "strict":
            self.errors.append(
                CacheMiss(
                    f"no recorded response for {request.method} {request.url}",
                    method=request.method,
                    url=request.url,
                    nearest=near,
                )
            )
        if self.options.on_miss == "abort":
            return None
        body = f"webdojo replay: {request.method} {request.url} is not in the archive"
        headers = (("content-type", "text/plain"), ("x-webdojo-cache", "miss"))
        return CapturedResponse(404, headers, body.encode(), "Not Found")

    async def _websocket(self, ws: WebSocketRoute) -> None:
        # never connect_to_server: the socket stays with us and closes
        self.stats.websockets += 1
        with contextlib.suppress(PlaywrightError):
            await ws.close(code=1011, reason="webdojo replay: WebSockets are not recorded")

    def raise_misses(self) -> None:
        """Strict mode: raise the first miss, naming the request and its nearest candidates."""
        if self.errors:
            raise self.errors[0]


def canonical(host: str) -> str:
    """A host name as the archive keys it: lower case, no trailing dot."""
    return host.lower().rstrip(".")
