"""Servers for the network-policy browser tests: an allowed local site and a decoy.

The allowed site (the session's start URL, so its origin is let through) builds one page per
attack vector: ``/v/<vector>?to=<url>`` tries to make the browser reach ``url`` that way. The
decoy answers anything and counts every request it gets; the tests must leave it at 0 (except
``/control/`` requests made with the policy off, which prove the vectors work).
"""

from __future__ import annotations

import html
import http.server
import json
import socket
import threading
from urllib.parse import parse_qs, urlsplit

from webdojo.local_http import LoopbackHTTPServer

# The link, form button or area the agent clicks sits at (50, 50) on every page.
_CLICKABLE = "position:fixed;left:0;top:0;width:200px;height:100px;display:block"


def _made_up_frame(assign: str) -> str:
    """A page that adds a frame whose document, made up by the page, fetches {js}."""
    doc = "'<script>fetch(' + JSON.stringify({js}) + ')<\\/script>'"
    return (
        f"<script>const f = document.createElement('iframe'); f.{assign}({doc}); "
        "document.body.append(f);</script>"
    )


# vector -> page body; {to} is the target URL (HTML-escaped), {js} the same as a JS string
PAGES: dict[str, str] = {
    "meta_refresh": '<meta http-equiv="refresh" content="0;url={to}">',
    "js_location": "<script>location.href = {js};</script>",
    "js_replace": "<script>setTimeout(() => location.replace({js}), 0);</script>",
    "iframe": '<iframe src="{to}"></iframe>',
    "window_open": "<script>window.open({js});</script>",
    "link_click": f'<a href="{{to}}" style="{_CLICKABLE}">go</a>',
    "blank_click": f'<a href="{{to}}" target="_blank" style="{_CLICKABLE}">go</a>',
    "form_post": (
        f'<form method="post" action="{{to}}"><button style="{_CLICKABLE}">go</button></form>'
    ),
    "fetch": "<script>fetch({js}).catch(() => {{}});</script>",
    "fetch_no_cors": "<script>fetch({js}, {{mode: 'no-cors'}}).catch(() => {{}});</script>",
    "xhr": "<script>const x = new XMLHttpRequest(); x.open('GET', {js}); x.send();</script>",
    "img": '<img src="{to}">',
    "script": '<script src="{to}"></script>',
    "stylesheet": '<link rel="stylesheet" href="{to}">',
    "beacon": "<script>navigator.sendBeacon({js}, 'x');</script>",
    "event_source": "<script>new EventSource({js});</script>",
    "websocket": "<script>new WebSocket({js}.replace(/^http/, 'ws'));</script>",
    "worker": "<script>new Worker('/worker.js?to=' + encodeURIComponent({js}));</script>",
    "prefetch": '<link rel="prefetch" href="{to}">',
    # Documents the page makes up itself (data: and srcdoc frames) and a javascript: link run
    # in the browser without a request; what they fetch meets the proxy like the page's own.
    "data_iframe": _made_up_frame("src = 'data:text/html,' + encodeURIComponent"),
    "srcdoc_iframe": _made_up_frame("srcdoc = "),
    "js_url_click": f'<a href="javascript:fetch(\'{{to}}\')" style="{_CLICKABLE}">go</a>',
}
# agent navigations (the start page is the plain allowed page)
AGENT_VECTORS = ("goto", "new_tab", "redirect_302", "redirect_307")
# vectors whose failure must reach the agent as a NetworkBlocked error
TOP_LEVEL = ("goto", "new_tab", "redirect_302", "redirect_307", "link_click", "blank_click")
# vectors whose documents the page makes up: any spelling reaches the proxy the same way
MADE_UP = ("data_iframe", "srcdoc_iframe", "js_url_click")
# vectors that navigate (or may, later): a late error page would race the next case's goto
NAVIGATES = (*TOP_LEVEL, "meta_refresh", "js_location", "js_replace", "window_open", "form_post")


class Counter:
    """Requests seen by one server: (method, path)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[tuple[str, str]] = []

    def add(self, method: str, path: str) -> None:
        with self.lock:
            self.seen.append((method, path))


def _handler(counter: Counter, decoy: bool) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            counter.add(self.command, self.path)
            if decoy:
                self._send(200, "text/html", "<title>decoy</title>reached")
                return
            self._site()

        do_POST = do_GET

        def _site(self) -> None:
            parts = urlsplit(self.path)
            to = parse_qs(parts.query).get("to", [""])[0]
            if parts.path.startswith("/redirect/"):
                self.send_response(int(parts.path.rsplit("/", 1)[1]))
                self.send_header("Location", to)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif parts.path == "/worker.js":
                self._send(200, "text/javascript", f"fetch({json.dumps(to)}).catch(() => {{}});")
            elif parts.path.startswith("/v/"):
                body = PAGES[parts.path[3:]].format(to=html.escape(to), js=json.dumps(to))
                self._send(200, "text/html", f"<title>vector</title><body>{body}</body>")
            else:
                self._send(200, "text/html", "<title>allowed</title><p>allowed site</p>")

        def _send(self, status: int, kind: str, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class Servers:
    """The allowed site and the decoy (on 127.0.0.1 and, where possible, ::1 too)."""

    def __init__(self) -> None:
        self.site_hits, self.decoy_hits = Counter(), Counter()
        self.site = LoopbackHTTPServer(_handler(self.site_hits, False)).start()
        self.decoy = LoopbackHTTPServer(_handler(self.decoy_hits, True)).start()
        self.decoy_port = int(self.decoy.httpd.server_address[1])
        self.decoy6 = _ipv6_twin(self.decoy_port, self.decoy_hits)

    @property
    def site_url(self) -> str:
        return self.site.base_url

    def close(self) -> None:
        self.site.close()
        self.decoy.close()
        if self.decoy6 is not None:
            self.decoy6.shutdown()
            self.decoy6.server_close()


class _V6Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True


def _ipv6_twin(port: int, counter: Counter) -> http.server.ThreadingHTTPServer | None:
    """The decoy on [::1] at the same port, so that IPv6 spellings would reach it too."""
    try:
        server = _V6Server(("::1", port), _handler(counter, True))
    except OSError:
        return None  # no IPv6 loopback here
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
