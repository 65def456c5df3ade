"""A static file server for site directories, bound to 127.0.0.1 on a free port.

Each site is served under ``/<name>/``. The server runs in a daemon thread of the current
process: serving a few static files per step costs far less than the browser work around it,
and it dies with the process, so a crashed run never leaves a server behind.
"""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
import threading
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from webdojo.local_http import LOOPBACK, LoopbackHTTPServer
from webdojo.tasks.loader import Site
from webdojo.tasks.schema import Task

SEED_PLACEHOLDER = "{seed}"  # in a task's local start page: the episode's seed


class SiteServer(LoopbackHTTPServer):
    """Serves ``sites`` from construction until ``close()``; also a context manager."""

    def __init__(self, sites: dict[str, Site], host: str = LOOPBACK, port: int = 0) -> None:
        self._roots = {name: site.path for name, site in sites.items()}
        self._injects = {name: site.inject for name, site in sites.items() if site.inject}
        handler = _make_handler(self._roots, self._injects)
        super().__init__(handler, host, port, name="webdojo-sites")
        self.start()

    def add(self, site: Site) -> None:
        """Serve one more site from now on (a generator validates sites as they are written;
        ``webdojo.make`` environments add the sites of their tasks)."""
        self._roots[site.info.name] = site.path
        if site.inject:  # MiniWoB++'s page script
            self._injects[site.info.name] = site.inject

    def url_for(self, site: str, path: str = "") -> str:
        return f"{self.base_url}/{site}/{path.lstrip('/')}"

    def start_url(self, task: Task, seed: int | None = None) -> str:
        """Where an episode of ``task`` starts: its own absolute URL or a page of its site.
        ``{seed}`` in a local start page is replaced by ``seed`` (0 when None): seeded pages
        (MiniWoB++'s) read it from their query string."""
        site = task.local_site
        if site is None:
            return task.start_url or task.website or "about:blank"
        page = (task.start_url or "").replace(SEED_PLACEHOLDER, str(seed or 0))
        return self.url_for(site, page)


def resolve_path(roots: dict[str, Path], url_path: str) -> Path | None:
    """Map ``/site/a/b.html`` to a file inside that site's root, or None (404).

    Paths are normalized before lookup and must stay inside the root: ``..`` cannot escape.
    """
    clean = posixpath.normpath(unquote(urlsplit(url_path).path))
    parts = [p for p in clean.split("/") if p]
    if not parts or parts[0] not in roots:
        return None
    root = roots[parts[0]]
    target = (root.joinpath(*parts[1:]) if len(parts) > 1 else root).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file() or not target.is_relative_to(root):
        return None
    return target


def with_injected(body: bytes, snippet: str) -> bytes:
    """An HTML page with ``snippet`` before its last ``</body>`` (at the end if it has none),
    so that the snippet's scripts run after every script of the page's own."""
    data = snippet.encode("utf-8")
    at = body.lower().rfind(b"</body>")
    return body + data if at < 0 else body[:at] + data + body[at:]


def _make_handler(roots: dict[str, Path], injects: dict[str, str]) -> type[BaseHTTPRequestHandler]:
    files = FileCache()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._serve(with_body=True)

        def do_HEAD(self) -> None:
            self._serve(with_body=False)

        def _serve(self, with_body: bool) -> None:
            target = resolve_path(roots, self.path)
            if target is None:
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain", with_body)
                return
            body, ctype, etag = files.get(target, injects.get(_site_of(self.path)))
            headers = {"ETag": etag, "Cache-Control": _cache_control(ctype)}
            if self.headers.get("If-None-Match") == etag:
                self._send(HTTPStatus.NOT_MODIFIED, b"", ctype, False, headers)
                return
            self._send(HTTPStatus.OK, body, ctype, with_body, headers)

        def _send(
            self,
            status: HTTPStatus,
            body: bytes,
            ctype: str,
            with_body: bool,
            headers: dict[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if status is not HTTPStatus.NOT_MODIFIED:
                self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {"Cache-Control": "no-cache"}).items():
                self.send_header(name, value)
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet by default
            pass

    return Handler


class FileCache:
    """Each file's response (body with the site's snippet, content type, ETag), read once and
    read again when its size, modification time or inode changes (a generator rewrites it).
    Every page load asks for the same few files, which were read and hashed per request. The
    least recently served responses go past ``max_bytes`` (many generated sites)."""

    def __init__(self, max_bytes: int = 64 * 2**20) -> None:
        self._entries: OrderedDict[tuple[Path, str | None], _Cached] = OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._lock = threading.Lock()

    def get(self, target: Path, snippet: str | None) -> _Response:
        stat = target.stat()
        version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        key = (target, snippet)
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None and cached.version == version:
                self._entries.move_to_end(key)
                return cached.response
        response = _response(target, snippet)
        with self._lock:
            self._put(key, _Cached(version, response))
        return response

    def cached(self) -> list[tuple[Path, str | None]]:
        """The keys held, least recently served first."""
        with self._lock:
            return list(self._entries)

    def _put(self, key: tuple[Path, str | None], entry: _Cached) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old.response.body)
        self._entries[key] = entry
        self._bytes += len(entry.response.body)
        while self._bytes > self._max_bytes and len(self._entries) > 1:
            self._bytes -= len(self._entries.popitem(last=False)[1].response.body)


class _Response(NamedTuple):
    body: bytes  # with the site's snippet
    ctype: str
    etag: str


class _Cached(NamedTuple):
    version: tuple[int, int, int]  # the file's (mtime_ns, size, inode) when it was read
    response: _Response


def _response(target: Path, snippet: str | None) -> _Response:
    ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype in {"application/javascript", "application/json"}:
        ctype += "; charset=utf-8"
    body = target.read_bytes()
    if snippet and ctype.startswith("text/html"):
        body = with_injected(body, snippet)
    return _Response(body, ctype, f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"')


def _site_of(url_path: str) -> str:
    parts = [p for p in posixpath.normpath(unquote(urlsplit(url_path).path)).split("/") if p]
    return parts[0] if parts else ""


def _cache_control(ctype: str) -> str:
    """Pages are revalidated on every load (a 304 when unchanged), as real sites' HTML is;
    scripts, styles and images are cached for the episode, as real sites' static assets are.
    Contexts are fresh per episode, so nothing is cached across episodes; caching assets saves
    about a quarter of a page load's browser CPU (measured on the built-in sites)."""
    return "no-cache" if ctype.startswith("text/html") else "max-age=3600"
