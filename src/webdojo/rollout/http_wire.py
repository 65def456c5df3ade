"""``WireClient``: ``HttpEnv``'s requests to one server, on one ``aiohttp.ClientSession``.

Not httpx, whose ``AsyncClient`` took most of the client's CPU per step under saturation;
aiohttp parses in C and pools cheaply. This adapts it to ``HttpEnv``: whole bodies, a deadline
per request, and failures that say whether the request may have reached the server. The
session is made on the first request (inside the running loop, as aiohttp requires).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from webdojo.errors import ConfigError


class WireError(Exception):
    """A request that got no complete response."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent  # False: no connection was made, the server never saw the request


@dataclass(frozen=True)
class WireResponse:
    status_code: int
    headers: Mapping[str, str]  # looked up case-insensitively
    content: bytes = field(repr=False)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


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
        url = URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(f"not an http(s) server URL: {base_url!r}")
        self.base = str(url).rstrip("/")
        self.headers = dict(headers or {})
        self.timeout = aiohttp.ClientTimeout(total=timeout_s, sock_connect=min(timeout_s, 30.0))
        self.max_connections = max_connections
        self.keepalive_s = keepalive_s  # idle connections close before uvicorn's 75 s
        self._session: aiohttp.ClientSession | None = None  # no cookies, no proxy variables
        self._closed = False

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            pool = aiohttp.TCPConnector(
                limit=self.max_connections, keepalive_timeout=self.keepalive_s
            )
            self._session = aiohttp.ClientSession(
                connector=pool,
                headers=self.headers,
                timeout=self.timeout,
                trust_env=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                read_bufsize=1 << 20,  # a screenshot arrives in few reads
            )
        return self._session

    async def request(
        self,
        method: str,
        path: str,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> WireResponse:
        if self._closed:
            raise WireError("the client is closed", sent=False)
        url = URL(self.base + path, encoded=True)  # our own paths: nothing to quote
        try:
            async with self._open().request(method, url, data=content, headers=headers) as resp:
                return WireResponse(resp.status, resp.headers, await resp.read())
        except (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError) as exc:
            raise WireError(f"cannot connect to {self.base}: {exc}", sent=False) from exc
        except TimeoutError as exc:
            raise WireError(f"no response within {self.timeout.total} s", sent=True) from exc
        except aiohttp.ClientError as exc:  # reset, hang-up, a response we cannot parse
            raise WireError(f"{type(exc).__name__}: {exc}", sent=True) from exc

    async def aclose(self) -> None:
        self._closed = True
        if self._session is not None:
            await self._session.close()
