"""The volatile site's ASGI app: three fake hosts on one socket, told apart by Host.

``www`` serves the pages and static files, ``api`` the JSON, JSONP, the cart POST, a counter
that changes on every call and a WebSocket, ``stats`` a beacon. Content depends only on the
stable parameters (page, q, id, item_id); the session cookies, the CSRF token and the counter
are the server's own volatile parts. ``RequestLog`` counts every request as it arrives (a
canary instance must see none) and keeps what each one carried.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
from collections import Counter
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Host, Route, Router, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from webdojo.bench.volatile_manifest import API, STATS, WWW

ASSETS = Path(__file__).with_name("volatile_assets")
STATIC = {"app.js", "site.css", "logo.svg"}
PAGE_SIZE = 3
SOCKET_GREETING = "hello from the socket"
PROMO = {"promo": "Spring sale: 20% off hats"}
# id -> (name, category, price); /api/items lists a category PAGE_SIZE at a time
CATALOG: dict[int, tuple[str, str, int]] = {
    101: ("Trail Runner", "shoes", 89),
    102: ("Court Classic", "shoes", 65),
    103: ("Harbor Loafer", "shoes", 120),
    104: ("Summit Boot", "shoes", 150),
    105: ("Canvas Low", "shoes", 45),
    106: ("Studio Slip-On", "shoes", 55),
    201: ("Wool Beanie", "hats", 25),
    202: ("Sun Visor", "hats", 18),
    203: ("Field Cap", "hats", 22),
    204: ("Felt Fedora", "hats", 70),
    205: ("Rain Bucket", "hats", 30),
    206: ("Knit Trapper", "hats", 40),
}
CALLBACK = re.compile(r"^[A-Za-z_$][\w$]{0,63}$")
NO_STORE = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class SeenRequest:
    """One request as the server received it (a WebSocket handshake has method ``WS``)."""

    method: str  # GET, POST, OPTIONS..., or WS
    host: str  # the Host header without its port, lower-case
    path: str  # the URL path
    query: str  # the raw query string
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    body: bytes  # what the app read of the body

    @property
    def params(self) -> dict[str, str]:
        return dict(parse_qsl(self.query, keep_blank_values=True))

    @property
    def cookies(self) -> dict[str, str]:
        jar: SimpleCookie = SimpleCookie()
        jar.load(self.headers.get("cookie", ""))
        return {name: morsel.value for name, morsel in jar.items()}

    def json(self) -> Any:
        return json.loads(self.body)


class RequestLog:
    """ASGI middleware: counts requests on arrival, records each one when it is done."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()  # (host, path) -> requests arrived
        self.seen: list[SeenRequest] = []

    def reset(self) -> None:
        with self._lock:
            self.counts.clear()
            self.seen.clear()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for key, value in scope["headers"]:
            name = key.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[name] = f"{headers[name]}, {text}" if name in headers else text
        host = headers.get("host", "").split(":", 1)[0].lower()
        with self._lock:
            self.counts[host, scope["path"]] += 1
        body = bytearray()

        async def tap() -> Any:
            message = await receive()
            body.extend(message.get("body", b""))
            return message

        try:
            await self.app(scope, tap, send)
        finally:
            method = scope.get("method", "WS")
            seen = SeenRequest(
                method, host, scope["path"], scope["query_string"].decode(), headers, bytes(body)
            )
            with self._lock:
                self.seen.append(seen)


class SiteState:
    """What the server remembers: sessions (session id -> CSRF token) and the counter."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.sessions: dict[str, str] = {}
        self.count = 0

    def next_count(self) -> int:
        with self._lock:
            self.count += 1
            return self.count

    def session(self, sid: str | None) -> tuple[str, str, bool]:
        """(session id, its CSRF token, whether it is new)."""
        with self._lock:
            if sid and sid in self.sessions:
                return sid, self.sessions[sid], False
            sid = secrets.token_hex(16)
            self.sessions[sid] = secrets.token_urlsafe(18)
            return sid, self.sessions[sid], True


def _page(state: SiteState, request: Request, template: str, **values: str) -> Response:
    sid, csrf, new = state.session(request.cookies.get("session"))
    text = (ASSETS / template).read_text(encoding="utf-8").replace("{{csrf}}", csrf)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html.escape(value))
    response = HTMLResponse(text, headers=NO_STORE)
    if new:
        # Shared by www, api and stats (one site); the session is for the server alone.
        host = request.url.hostname or ""
        domain = host.split(".", 1)[1] if host.startswith("www.") else None
        response.set_cookie("session", sid, domain=domain, httponly=True, samesite="lax")
        response.set_cookie("csrftoken", csrf, domain=domain, samesite="lax")
    return response


def _int_param(request: Request, name: str) -> int | None:
    try:
        return int(request.query_params.get(name, ""))
    except ValueError:
        return None


def www_routes(state: SiteState) -> list[Any]:
    async def home(request: Request) -> Response:
        return _page(state, request, "home.html")

    async def search(request: Request) -> Response:
        page = _int_param(request, "page") or 1
        q = request.query_params.get("q", "")
        return _page(state, request, "search.html", q=q, page=str(page), next=str(page + 1))

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", 404)
        return FileResponse(ASSETS / name, headers={"Cache-Control": "max-age=3600"})

    async def service_worker(request: Request) -> Response:
        return FileResponse(ASSETS / "sw.js", media_type="text/javascript", headers=NO_STORE)

    return [
        Route("/", home),
        Route("/search", search),
        Route("/static/{name}", static),
        Route("/sw.js", service_worker),
    ]


def _item(item_id: int) -> dict[str, Any]:
    name, _, price = CATALOG[item_id]
    return {"id": item_id, "name": name, "price": price}


def api_routes(state: SiteState) -> list[Any]:
    async def items(request: Request) -> Response:
        page, q = _int_param(request, "page") or 1, request.query_params.get("q", "")
        found = [item_id for item_id, (_, category, _) in CATALOG.items() if category == q]
        chosen = found[(page - 1) * PAGE_SIZE : page * PAGE_SIZE] if page > 0 else []
        return JSONResponse(
            {"q": q, "page": page, "items": [_item(i) for i in chosen]}, headers=NO_STORE
        )

    async def item(request: Request) -> Response:
        item_id = _int_param(request, "id")
        if item_id not in CATALOG:
            return JSONResponse({"error": "no such item"}, 404)
        return JSONResponse(_item(item_id), headers=NO_STORE)

    async def counter(request: Request) -> Response:
        return JSONResponse({"count": state.next_count()}, headers=NO_STORE)

    async def promo(request: Request) -> Response:
        callback = request.query_params.get("callback", "")
        if not CALLBACK.match(callback):
            return Response("bad callback", 400)
        return Response(
            f"{callback}({json.dumps(PROMO)});", media_type="text/javascript", headers=NO_STORE
        )

    async def cart(request: Request) -> Response:
        token = state.sessions.get(request.cookies.get("session", ""))
        if token is None or request.headers.get("x-csrf-token") != token:
            return JSONResponse({"error": "bad CSRF token"}, 403)
        try:
            item_id = int((await request.json())["item_id"])
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "bad body"}, 400)
        if item_id not in CATALOG:
            return JSONResponse({"error": "no such item"}, 404)
        return JSONResponse(
            {"item_id": item_id, "name": CATALOG[item_id][0], "qty": 1}, headers=NO_STORE
        )

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(SOCKET_GREETING)
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            pass

    return [
        Route("/api/items", items),
        Route("/api/item", item),
        Route("/api/counter", counter),
        Route("/api/promo", promo),
        Route("/api/cart", cart, methods=["POST"]),
        WebSocketRoute("/ws", socket),
    ]


def stats_routes() -> list[Any]:
    async def beacon(request: Request) -> Response:
        await request.body()  # read, so the log keeps it
        return Response(status_code=204)

    return [Route("/beacon", beacon, methods=["POST"])]


def create_app(state: SiteState | None = None) -> RequestLog:
    """The whole site, wrapped in its request log (``app.counts``, ``app.seen``)."""
    state = state or SiteState()
    cors = Middleware(
        CORSMiddleware,
        allow_origin_regex=r"https?://[a-z0-9-]+\.volatile\.test(:\d+)?",
        allow_credentials=True,
        allow_methods=["GET", "POST"],
        allow_headers=["content-type", "x-csrf-token", "x-request-id"],
    )
    api = Starlette(routes=api_routes(state), middleware=[cors])
    router = Router(
        routes=[
            Host(WWW, app=Router(routes=www_routes(state))),
            Host(API, app=api),
            Host(STATS, app=Router(routes=stats_routes())),
        ]
    )
    return RequestLog(router)
