"""A SOCKS5 proxy on loopback that enforces one browser context's ``NetworkPolicy``.

Every connection the context makes (pages, popups, iframes, redirects, fetch, WebSockets,
workers) goes through the proxy that Playwright configures for it: Chromium sends SOCKS5
proxies the host name, not an address, and Playwright adds ``<-loopback>`` to the bypass list,
so that loopback goes through the proxy too. The proxy decides once per connection, resolves
the name itself, checks every address, connects to a checked one, and then only copies bytes.

Blocked connections get SOCKS reply 2 ("not allowed by ruleset") and are kept in ``blocks`` so
that the session can name the host and the rule in a ``NetworkBlocked`` error.

``precheck`` refuses a URL on what it says alone, before anything is sent: the agent's
``goto``/``new_tab`` and the episode's start URL alike (the server also runs it, as
``refuse_url``, on a client's ``start_url`` before any browser work).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import cast

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from webdojo.browser.netpolicy import NetworkPolicy, Verdict, canonical_host, parse_ip, url_target
from webdojo.errors import NetworkBlocked

Resolver = Callable[[str, int], Awaitable[list[str]]]

_REPLY_OK, _REPLY_RULESET, _REPLY_UNREACHABLE, _REPLY_REFUSED, _REPLY_COMMAND = 0, 2, 4, 5, 7
_HANDSHAKE_TIMEOUT_S = 10.0
_MAX_BLOCKS = 1000  # remembered per session; older ones are dropped
# how Chromium reports a tunnel the proxy refused, and the page it shows for a failed load
PROXY_REFUSED = "net::ERR_SOCKS_CONNECTION_FAILED"
_ERROR_PAGE = "chrome-error://"
_ERROR_PAGE_WAIT_MS = 500  # after a refusal: how long a refused page load may take to show


@dataclass(frozen=True)
class Block:
    """One refused connection."""

    seq: int  # 1, 2, ...: compare with ``NetGuard.mark()`` taken before an action
    host: str  # as the browser asked for it
    port: int
    verdict: Verdict

    def describe(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port} is blocked by the network policy: {self.verdict.describe()}"

    def error(self, what: str = "") -> NetworkBlocked:
        message = f"{what} failed: {self.describe()}" if what else self.describe()
        return NetworkBlocked(message, host=self.host, port=self.port, rule=self.verdict.rule)


def url_block(policy: NetworkPolicy, url: str) -> Block | None:
    """The refusal of ``url`` on what it says alone (scheme aside): deny and allow lists, IP
    literals in any spelling, local names. None when allowed so far: names that resolve to
    private addresses are left to the proxy."""
    target = url_target(url)
    if target is None:
        return None
    verdict = policy.check(*target)
    return None if verdict.allowed else Block(0, target[0], target[1], verdict)


def refuse_url(policy: NetworkPolicy, url: str) -> None:
    """``NetGuard.precheck`` without a proxy (nothing is recorded): raises ``NetworkBlocked``."""
    _check_scheme(policy, url)
    block = url_block(policy, url)
    if block is not None:
        raise block.error()


def _check_scheme(policy: NetworkPolicy, url: str) -> None:
    if not policy.scheme_allowed(url):
        scheme = url.partition(":")[0].lower()
        raise NetworkBlocked(f"{scheme}: URLs are blocked by the network policy")


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (IPv4 and IPv6)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class NetGuard:
    """``await NetGuard(policy).start()``; hand ``proxy`` to ``browser.new_context``."""

    # how Chromium reports a connection this proxy refused (``ReplayGate`` has its own)
    refused_errors: tuple[str, ...] = (PROXY_REFUSED,)

    def __init__(self, policy: NetworkPolicy, resolver: Resolver = system_resolver) -> None:
        self.policy = policy
        self._resolver = resolver
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()  # both ends of every open tunnel
        self.blocks: deque[Block] = deque(maxlen=_MAX_BLOCKS)
        self._seq = 0
        self.connections = 0  # connections let through (for tests and stats)

    async def start(self) -> NetGuard:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    @property
    def proxy(self) -> dict[str, str]:
        """Playwright's ``proxy`` argument."""
        assert self._server is not None, "start() first"
        port = self._server.sockets[0].getsockname()[1]
        return {"server": f"socks5://127.0.0.1:{port}"}

    def precheck(self, url: str) -> None:
        """Refuse a navigation (an agent's, or the episode's start URL) on what the URL alone
        says (scheme, deny and allow lists, IP literals, local names), before anything is
        sent. Raises ``NetworkBlocked``. Names that resolve to private addresses are caught
        by the proxy."""
        _check_scheme(self.policy, url)
        block = url_block(self.policy, url)
        if block is not None:
            raise self._record(block.host, block.port, block.verdict).error()

    def refused(self, error: str) -> bool:
        """Whether a failed load's error is this proxy refusing the connection."""
        return any(code in error for code in self.refused_errors)

    def mark(self) -> int:
        return self._seq

    def blocks_since(self, mark: int) -> list[Block]:
        return [b for b in self.blocks if b.seq > mark]

    def error_since(self, mark: int, what: str) -> NetworkBlocked | None:
        """A ``NetworkBlocked`` for the latest connection refused after ``mark`` (the one
        nearest the failure, e.g. a redirect's target), if any."""
        blocks = self.blocks_since(mark)
        return blocks[-1].error(what) if blocks else None

    async def failed_load(self, page: Page, mark: int, what: str) -> NetworkBlocked | None:
        """The error for a page load the policy refused during an action, if any. Such a load
        shows Chromium's error page and raises nothing by itself; the error page can commit
        just after the action settled, so with a refusal on record, wait for it briefly."""
        blocked = self.error_since(mark, what)
        if blocked is None:
            return None
        if not page.url.startswith(_ERROR_PAGE):
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_url(
                    lambda url: url.startswith(_ERROR_PAGE),
                    wait_until="commit",
                    timeout=_ERROR_PAGE_WAIT_MS,
                )
        return blocked if page.url.startswith(_ERROR_PAGE) else None

    async def aclose(self) -> None:
        """Stop listening and cut every open tunnel. Idempotent."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.close()  # each tunnel's copies see EOF and end on their own
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=1.0)
        for task in list(self._tasks):
            task.cancel()

    # --- one connection ---------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        upstream = None
        try:
            async with asyncio.timeout(_HANDSHAKE_TIMEOUT_S):
                upstream = await self._handshake(reader, writer)
            if upstream is not None:
                self.connections += 1
                self._writers.add(upstream[1])
                await _pipe(reader, writer, *upstream)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError):
            pass
        except asyncio.CancelledError:
            pass  # a handler of asyncio's server: its cancellation would be logged as an error
        finally:
            self._tasks.discard(task)
            self._writers.discard(writer)
            writer.close()
            if upstream is not None:
                self._writers.discard(upstream[1])
                upstream[1].close()

    async def _handshake(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        version, count = await reader.readexactly(2)
        if version != 5:
            return None
        methods = await reader.readexactly(count)
        writer.write(b"\x05\x00" if 0 in methods else b"\x05\xff")  # no authentication
        _, command, _, kind = await reader.readexactly(4)
        host = await _read_host(reader, kind)
        port = int.from_bytes(await reader.readexactly(2), "big")
        if command != 1:  # CONNECT only: no BIND, no UDP
            await _reply(writer, _REPLY_COMMAND)
            return None
        verdict, addresses = await self._decide(host, port)
        if not verdict.allowed:
            self._record(host, port, verdict)
            await _reply(writer, _REPLY_RULESET)
            return None
        for address in addresses:
            try:
                upstream = await asyncio.open_connection(address, port)
            except OSError:
                continue
            try:
                await _reply(writer, _REPLY_OK)
            except BaseException:
                upstream[1].close()  # the browser went away (or the handshake timed out)
                raise
            return upstream
        await _reply(writer, _REPLY_REFUSED if addresses else _REPLY_UNREACHABLE)
        return None

    async def _decide(self, host: str, port: int) -> tuple[Verdict, list[str]]:
        """The verdict and the addresses to connect to (only ever checked ones)."""
        verdict = self.policy.check(host, port)
        if not verdict.allowed:
            return verdict, []
        name = canonical_host(host)
        if parse_ip(name) is not None:
            return verdict, [name]
        try:
            addresses = await self._resolver(name, port)
        except OSError:
            return verdict, []
        return self.policy.check(host, port, addresses), addresses

    def _record(self, host: str, port: int, verdict: Verdict) -> Block:
        self._seq += 1
        block = Block(self._seq, host, port, verdict)
        self.blocks.append(block)
        return block


async def _read_host(reader: asyncio.StreamReader, kind: int) -> str:
    if kind == 1:
        return socket.inet_ntop(socket.AF_INET, await reader.readexactly(4))
    if kind == 4:
        return socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
    if kind == 3:
        size = (await reader.readexactly(1))[0]
        return (await reader.readexactly(size)).decode("idna")
    raise ValueError(f"unknown SOCKS address type {kind}")


async def _reply(writer: asyncio.StreamWriter, code: int) -> None:
    writer.write(bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0]))
    await writer.drain()


async def _pipe(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until either side closes. After the handshake the two transports are
    handed to ``_Relay`` protocols, which pass each chunk on as it arrives: no coroutine, no
    extra buffer per chunk, which halves the proxy's CPU next to stream reads and writes."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    # (uvloop's transports have the same methods but are not asyncio.Transport subclasses)
    client = cast(asyncio.Transport, writer.transport)
    upstream = cast(asyncio.Transport, up_writer.transport)
    for source, sink in ((reader, upstream), (up_reader, client)):
        pending = bytes(source._buffer)  # type: ignore[attr-defined]  # read past the handshake
        if pending:
            sink.write(pending)
    client.set_protocol(_Relay(upstream, done))
    upstream.set_protocol(_Relay(client, done))
    try:
        await done
    finally:
        client.close()
        upstream.close()


class _Relay(asyncio.Protocol):
    """Writes what one transport receives to its peer, with the peer's flow control."""

    def __init__(self, peer: asyncio.Transport, done: asyncio.Future[None]) -> None:
        self._peer = peer
        self._done = done

    def data_received(self, data: bytes) -> None:
        self._peer.write(data)

    def eof_received(self) -> bool:
        return False  # close this side; connection_lost closes the peer once it has flushed

    def pause_writing(self) -> None:
        self._peer.pause_reading()  # our transport's buffer is full: stop reading the peer

    def resume_writing(self) -> None:
        self._peer.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self._peer.close()
        if not self._done.done():
            self._done.set_result(None)
