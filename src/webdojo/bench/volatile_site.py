"""The volatile site: a local website made to be hard to record and replay.

It runs on loopback; Chromium reaches its fake host names (``www``/``api``/``stats``
``.volatile.test``) through ``--host-resolver-rules`` (``resolve_rules()``). Its home page
sends cache-busters, a JSONP callback, session cookies, CSRF and request-id headers, JSON
POSTs with times and nonces in shuffled key order, a beacon, a counter call, a WebSocket, a
service worker registration, and draws a canvas with ``Math.random``; the manifest
(``volatile_manifest``) lists the fields that truly change. A second instance serves as a
canary: pointed at by the resolver rules during replay, it must count no hits.

    with VolatileSite() as site:
        args = (f"--host-resolver-rules={site.resolve_rules()}",)
        ...  # load site.start_url, wait for window.__volatileDone

``python -m webdojo.bench.volatile_site`` serves it until interrupted.
"""

from __future__ import annotations

import asyncio
import time

from webdojo.asgi import ThreadServer
from webdojo.bench.volatile_app import SeenRequest, SiteState, create_app
from webdojo.bench.volatile_manifest import (
    BROWSER_VOLATILE,
    ECHOED_FIELDS,
    HOSTS,
    MANIFEST,
    TRAP_PARAMS,
    WWW,
    entry_matches,
    is_trap,
    is_volatile,
    manifest,
    trap_params,
)

__all__ = [
    "BROWSER_VOLATILE",
    "DONE_JS",
    "ECHOED_FIELDS",
    "HOSTS",
    "MANIFEST",
    "TRAP_PARAMS",
    "SeenRequest",
    "VolatileSite",
    "entry_matches",
    "is_trap",
    "is_volatile",
    "manifest",
    "trap_params",
]

DONE_JS = "window.__volatileDone === true"  # for page.wait_for_function


class VolatileSite:
    """The site under uvicorn in a thread on 127.0.0.1 (a free port); a context manager."""

    def __init__(self) -> None:
        self.state = SiteState()
        self._app = create_app(self.state)
        self._server = ThreadServer(self._app)
        self.port: int = self._server.port
        self.hosts: tuple[str, ...] = HOSTS
        self.start_url = f"http://{WWW}/"
        self.search_url = f"http://{WWW}/search?q=hats&page=1"

    def start(self) -> VolatileSite:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> VolatileSite:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def resolve_rules(self) -> str:
        """The value of Chromium's ``--host-resolver-rules``: every fake host to this port."""
        return ", ".join(f"MAP {host} 127.0.0.1:{self.port}" for host in self.hosts)

    def launch_args(self) -> tuple[str, ...]:
        """Chromium flags for this site: the resolver rules, and its origins counted as
        secure (service workers exist only in secure contexts, and plain-http fake hosts
        are not one), so that the registration is really tried."""
        origins = ",".join(f"http://{host}" for host in self.hosts)
        return (
            f"--host-resolver-rules={self.resolve_rules()}",
            f"--unsafely-treat-insecure-origin-as-secure={origins}",
        )

    @property
    def hits(self) -> int:
        """Requests received so far (WebSocket handshakes included), counted on arrival."""
        return sum(self._app.counts.values())

    @property
    def hits_by_path(self) -> dict[str, int]:
        """Requests received so far per ``host + path``, e.g. ``api.volatile.test/api/items``."""
        return {host + path: count for (host, path), count in self._app.counts.items()}

    def hits_for(self, path: str, host: str | None = None) -> int:
        """Requests received for ``path`` (on ``host``, or on any host)."""
        counts = list(self._app.counts.items())
        return sum(n for (h, p), n in counts if p == path and host in (None, h))

    @property
    def requests(self) -> list[SeenRequest]:
        """Requests answered so far, in the order they finished."""
        return list(self._app.seen)

    async def wait_for_hits(self, path: str, count: int = 1, timeout_s: float = 5.0) -> bool:
        """Wait until ``path`` has ``count`` hits (a beacon may land after the page is done);
        False if it has not within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while self.hits_for(path) < count:
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    def reset(self) -> None:
        """Forget the hits and requests (sessions and the counter stay)."""
        self._app.reset()


def main() -> None:
    site = VolatileSite().start()
    print(f"volatile site on 127.0.0.1:{site.port}; open {site.start_url} in Chromium with")
    print(f'  --host-resolver-rules="{site.resolve_rules()}"')
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        site.stop()


if __name__ == "__main__":
    main()
