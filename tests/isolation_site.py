"""A site on 127.0.0.1 that plants canaries in a browser session and probes for them.

``/plant/TOKEN`` sets a cookie by header, and its script a cookie by JS, localStorage,
sessionStorage, IndexedDB and Cache API entries, fetches the cacheable ``/cached/TOKEN`` (the
server counts its hits: a second fetch served from the HTTP cache does not reach it) and
downloads ``/download/TOKEN``; then it goes to ``/planted/TOKEN``, which the server notes.

``/probe/TOKEN/ID`` reads all of that back, fetches ``/cached/TOKEN`` again, and goes to
``/report/ID?...`` with what it saw; the server keeps the report. Tests wait on the server's
notes, never on timing, and read a probe's findings with ``report``.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterator
from typing import Any

from webdojo.local_http import LoopbackHTTPServer

DOWNLOAD_BYTES = 4096

_PLANT = """<!doctype html><title>plant</title><script>
(async () => {
  const t = %(token)s;
  document.cookie = "jcanary=" + t + "; path=/; max-age=3600";
  localStorage.setItem("canary", t);
  sessionStorage.setItem("canary", t);
  await new Promise((ok, bad) => {
    const r = indexedDB.open("canary", 1);
    r.onupgradeneeded = () => r.result.createObjectStore("s");
    r.onerror = bad;
    r.onsuccess = () => {
      const tx = r.result.transaction("s", "readwrite");
      tx.objectStore("s").put(t, "k");
      tx.oncomplete = () => { r.result.close(); ok(); };
    };
  });
  const cache = await caches.open("canary");
  await cache.put("/canary-entry", new Response(t));
  await (await fetch("/cached/" + t)).text();
  const a = document.createElement("a");
  a.href = "/download/" + t; a.download = "canary-" + t + ".bin";
  document.body.appendChild(a); a.click();
  setTimeout(() => { location.href = "/planted/" + t; }, 300);
})();
</script><body>plant</body>"""

_PROBE = """<!doctype html><title>probe</title><script>
(async () => {
  const out = {cookie: document.cookie, local: localStorage.getItem("canary"),
               session: sessionStorage.getItem("canary")};
  out.idb = await new Promise((ok) => {
    const r = indexedDB.open("canary", 1);
    r.onupgradeneeded = () => r.result.createObjectStore("s");
    r.onerror = () => ok("error");
    r.onsuccess = () => {
      const get = r.result.transaction("s").objectStore("s").get("k");
      get.onsuccess = () => { ok(get.result ?? null); r.result.close(); };
      get.onerror = () => ok("error");
    };
  });
  const hit = await (await caches.open("canary")).match("/canary-entry");
  out.cache_api = hit ? await hit.text() : null;
  await (await fetch("/cached/" + %(token)s)).text();
  location.href = "/report/" + %(probe)s + "?" + new URLSearchParams({data: JSON.stringify(out)});
})();
</script><body>probe</body>"""


class IsolationSite:
    def __init__(self) -> None:
        self.url = ""
        self.hits: dict[str, int] = {}  # /cached/TOKEN requests that reached the server
        self.planted: set[str] = set()
        self.reports: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._probes = 0

    def plant_url(self, token: str) -> str:
        return f"{self.url}/plant/{token}"

    def probe_url(self, token: str) -> tuple[str, str]:
        """A probe page for ``token`` and the id its report will have."""
        with self._lock:
            self._probes += 1
            probe = f"p{self._probes}"
        return f"{self.url}/probe/{token}/{probe}", probe

    async def wait_planted(self, token: str, timeout_s: float = 20.0) -> None:
        await _wait(lambda: token in self.planted, f"the canary {token} was planted", timeout_s)

    async def report(self, probe: str, timeout_s: float = 20.0) -> dict[str, Any]:
        await _wait(lambda: probe in self.reports, f"probe {probe} reported", timeout_s)
        return self.reports[probe]

    async def seen(self, probe: str, token: str) -> set[str]:
        """The canaries of ``token`` that a probe saw (cookie_h, cookie_j, local, ...)."""
        found = await self.report(probe)
        seen = {k for k in ("local", "session", "idb", "cache_api") if found.get(k) == token}
        cookies = dict(c.strip().partition("=")[::2] for c in found["cookie"].split(";") if c)
        seen |= {f"cookie_{k[0]}" for k in ("hcanary", "jcanary") if cookies.get(k) == token}
        return seen


ALL_CANARIES = {"cookie_h", "cookie_j", "local", "session", "idb", "cache_api"}


async def _wait(done: Any, what: str, timeout_s: float) -> None:
    try:
        async with asyncio.timeout(timeout_s):
            while not done():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting until {what}") from None


def _handler(site: IsolationSite) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            parts = path.strip("/").split("/")
            headers = {"Content-Type": "text/html"}
            body = b"<!doctype html><title>ok</title>"
            if parts[0] == "plant":
                token = parts[1]
                body = (_PLANT % {"token": json.dumps(token)}).encode()
                headers["Set-Cookie"] = f"hcanary={token}; Path=/; Max-Age=3600"
            elif parts[0] == "probe":
                args = {"token": json.dumps(parts[1]), "probe": json.dumps(parts[2])}
                body = (_PROBE % args).encode()
            elif parts[0] == "cached":
                with site._lock:
                    site.hits[parts[1]] = site.hits.get(parts[1], 0) + 1
                headers = {"Content-Type": "text/plain", "Cache-Control": "max-age=3600"}
                body = parts[1].encode()
            elif parts[0] == "download":
                headers = {"Content-Type": "application/octet-stream"}
                headers["Content-Disposition"] = f'attachment; filename="canary-{parts[1]}.bin"'
                body = b"c" * DOWNLOAD_BYTES
            elif parts[0] == "big":  # /big/N[/unsized]: N bytes, said up front or not
                self._big(int(parts[1]), sized=len(parts) < 3)
                return
            elif parts[0] == "planted":
                site.planted.add(parts[1])
            elif parts[0] == "report":
                data = urllib.parse.parse_qs(query)["data"][0]
                site.reports[parts[1]] = json.loads(data)
            self.send_response(200)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(body)

        def _big(self, size: int, sized: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Disposition", 'attachment; filename="big.bin"')
            if sized:
                self.send_header("Content-Length", str(size))
            self.end_headers()
            block = b"b" * 65536
            with contextlib.suppress(OSError):  # the browser hangs up on a cancelled one
                for start in range(0, size, len(block)):
                    self.wfile.write(block[: size - start])

    return Handler


@contextlib.contextmanager
def serve_isolation_site() -> Iterator[IsolationSite]:
    site = IsolationSite()
    with LoopbackHTTPServer(_handler(site)) as server:
        site.url = server.base_url
        yield site
