"""The ground truth of the volatile site: which request fields change from load to load.

The cache benchmark scores learned volatility rules against ``MANIFEST`` (precision and
recall) and checks that replay keeps the ``TRAP_PARAMS`` apart (a rule that drops ``page``
or ``id`` would serve one page's answer for another). Each field is a dict
``{"host", "path", "where", "name"}``: ``where`` is one of query, header, cookie, json, form;
header and cookie names are lower-case; ``"*"`` as host or path matches any (the session
cookies ride on every request to every host of the site).
"""

from __future__ import annotations

from typing import Final

WWW: Final = "www.volatile.test"  # pages and static files
API: Final = "api.volatile.test"  # JSON, JSONP, the POST, the counter, the WebSocket
STATS: Final = "stats.volatile.test"  # the beacon
HOSTS: Final = (WWW, API, STATS)
WHERE: Final = ("query", "header", "cookie", "json", "form")


def _field(host: str, path: str, where: str, name: str) -> dict[str, str]:
    return {"host": host, "path": path, "where": where, "name": name}


# What the page script (volatile_assets/app.js) and the server make different on each load.
MANIFEST: Final[tuple[dict[str, str], ...]] = (
    _field(API, "/api/items", "query", "_"),  # Date.now() cache-buster
    _field(API, "/api/item", "query", "_"),  # Date.now() cache-buster
    _field(API, "/api/promo", "query", "callback"),  # JSONP cb_<random>, echoed in the body
    _field(WWW, "/static/logo.svg", "query", "cb"),  # random cache-buster on the image
    _field(API, "/api/cart", "json", "ts"),  # Date.now() in the POST body
    _field(API, "/api/cart", "json", "nonce"),  # random hex in the POST body
    _field(API, "/api/cart", "header", "x-csrf-token"),  # the session's token
    _field(API, "/api/cart", "header", "x-request-id"),  # a random UUID per request
    _field(API, "/api/counter", "header", "x-request-id"),  # a random UUID per request
    _field(STATS, "/beacon", "form", "t"),  # Date.now() in the beacon
    _field(STATS, "/beacon", "form", "sid"),  # random id in the beacon
    _field("*", "*", "cookie", "session"),  # random per visit, HttpOnly
    _field("*", "*", "cookie", "csrftoken"),  # random per visit, read by no one but the server
)

# Fields that select content: two values must never be served one answer.
TRAP_PARAMS: Final[tuple[dict[str, str], ...]] = (
    _field(API, "/api/items", "query", "page"),  # 1 and 2 on one load
    _field(API, "/api/items", "query", "q"),  # shoes and hats on one load
    _field(API, "/api/item", "query", "id"),  # 101, 102, 103 on one load
    _field(API, "/api/cart", "json", "item_id"),  # 101 and 102 on one load
    _field(WWW, "/search", "query", "q"),
    _field(WWW, "/search", "query", "page"),
)

# Volatile fields whose value the response repeats: a replayer that serves the recorded body
# answers with the recorded value (the old JSONP callback name), which the page never defined.
ECHOED_FIELDS: Final[tuple[dict[str, str], ...]] = (_field(API, "/api/promo", "query", "callback"),)

# Random values the browser itself adds, not the site: left out of MANIFEST because a cache
# that never sees WebSocket handshakes should not lose recall over them.
BROWSER_VOLATILE: Final[tuple[dict[str, str], ...]] = (
    _field(API, "/ws", "header", "sec-websocket-key"),
)


def manifest() -> list[dict[str, str]]:
    """The true volatile request fields (fresh copies)."""
    return [dict(field) for field in MANIFEST]


def trap_params() -> list[dict[str, str]]:
    """The content-selecting fields that must stay distinct (fresh copies)."""
    return [dict(field) for field in TRAP_PARAMS]


def entry_matches(entry: dict[str, str], host: str, path: str, where: str, name: str) -> bool:
    """Whether one manifest entry names this field (its ``"*"`` host or path match any)."""
    return (
        entry["where"] == where
        and entry["name"] == name
        and entry["host"] in ("*", host)
        and entry["path"] in ("*", path)
    )


def is_volatile(host: str, path: str, where: str, name: str) -> bool:
    """Whether the manifest lists this field (``"*"`` entries match any host or path).
    Header and cookie names compare lower-case."""
    if where in ("header", "cookie"):
        name = name.lower()
    host = host.lower().split(":", 1)[0]
    return any(entry_matches(entry, host, path, where, name) for entry in MANIFEST)


def is_trap(host: str, path: str, where: str, name: str) -> bool:
    """Whether this field selects content (it must never be ignored when matching)."""
    host = host.lower().split(":", 1)[0]
    return any(entry_matches(entry, host, path, where, name) for entry in TRAP_PARAMS)
