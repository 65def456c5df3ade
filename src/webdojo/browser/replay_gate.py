"""A replaying context's proxy: the archive answers every request, nothing leaves the machine.

``ReplayGate`` stands where a session's ``NetGuard`` stands (the same precheck of URLs, the
same record of refused hosts that becomes a ``NetworkBlocked`` for the agent), but its proxy
is an HTTP proxy on loopback whose connections ``webdojo.cache.replay_http`` serves from the
replayer. An HTTP proxy rather than SOCKS: the browser sends plain ``http://`` requests of
every host over the same few proxy connections, with no handshake per connection, and a page
load from the archive is then as fast as the same site live on loopback (``webdojo bench
cache``: ``replay_over_live``).

A host the archive does not hold is refused: its request gets no answer (the browser reports
``ERR_EMPTY_RESPONSE``) and its tunnel a 403 (``ERR_TUNNEL_CONNECTION_FAILED``).
"""

from __future__ import annotations

import asyncio
import contextlib

from webdojo.browser.netguard import NetGuard
from webdojo.browser.netpolicy import NetworkPolicy, Verdict, canonical_host
from webdojo.cache.exchange import CapturedRequest, CapturedResponse
from webdojo.cache.replay_http import HttpConnection
from webdojo.cache.replayer import NOT_RECORDED, Replayer


class ReplayGate(NetGuard):
    """``await ReplayGate(policy, replayer).start()``; hand ``proxy`` to ``new_context``."""

    refused_errors = ("net::ERR_EMPTY_RESPONSE", "net::ERR_TUNNEL_CONNECTION_FAILED")

    def __init__(self, policy: NetworkPolicy, replayer: Replayer) -> None:
        super().__init__(policy)
        self.replayer = replayer
        self._http: asyncio.Server | None = None
        self._open: set[HttpConnection] = set()

    async def start(self) -> ReplayGate:
        loop = asyncio.get_running_loop()
        self._http = await loop.create_server(self._connection, "127.0.0.1", 0)
        return self

    @property
    def proxy(self) -> dict[str, str]:
        assert self._http is not None, "start() first"
        port = self._http.sockets[0].getsockname()[1]
        return {"server": f"http://127.0.0.1:{port}"}

    def _connection(self) -> HttpConnection:
        connection = HttpConnection(self)
        self._open.add(connection)
        connection.closed.add_done_callback(lambda _: self._open.discard(connection))
        return connection

    # --- the Wire of every connection ---------------------------------------------------------

    def admit(self, host: str, port: int, what: str, retried: bool) -> bool:
        if self.replayer.admit(host, port, what, retried):
            return True
        self._record(host, port, Verdict(False, NOT_RECORDED, canonical_host(host)))
        return False

    def answer(self, request: CapturedRequest, resource_type: str) -> CapturedResponse | None:
        return self.replayer.answer(request, resource_type)

    async def aclose(self) -> None:
        """Stop listening and close every connection. Idempotent."""
        if self._http is not None:
            self._http.close()
            self._http = None
        for connection in list(self._open):
            connection.close()
        with contextlib.suppress(TimeoutError):
            closing = [c.closed for c in self._open]
            if closing:
                await asyncio.wait_for(asyncio.gather(*closing), 1.0)
        await super().aclose()
