"""``webdojo bench stalled``: a ``webdojo serve`` process under stalled and crowding clients.

One client address (127.0.0.1) opens ``connections`` sockets and stalls on each, in turn:
sending nothing, half a request's headers, or the headers and half the body. While they are
held, another client (127.0.0.2: loopback is all of 127.0.0.0/8) asks for ``/v1/health`` and
opens and closes a session, timing each answer. Then every stalled socket is read until the
server closes it: those past the per-client bound get a 429 at once, the others a 408 once
their read timeout has passed. The figures: how fast the other client was answered, and how
long the server took to close every stalled socket, against its bounds.
"""

from __future__ import annotations

import asyncio
import json
import selectors
import socket
import time
from dataclasses import asdict, dataclass, field
from typing import Any, cast

import httpx

from webdojo.bench.percentiles import percentile
from webdojo.server.api.connections import raise_open_file_limit
from webdojo.server.child_process import ServerProcess

STALLER = "127.0.0.1"  # the address that stalls
OTHER = "127.0.0.2"  # another client, on loopback too
TASK = "login.account-id"
KINDS = ("silent", "half_headers", "half_body")
_STALLS = {
    "silent": b"",
    "half_headers": b"GET /v1/health HTTP/1.1\r\nHost: x\r\nUser-",
    "half_body": b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
    b'content-length: 400\r\n\r\n{"task_id": ',
}


@dataclass
class StalledResult:
    connections: int
    read_timeout_s: float
    max_per_client: int
    baseline_health_ms: list[float] = field(default_factory=list)  # before any stall
    health_ms: list[float] = field(default_factory=list)  # the other client, while held
    create_ms: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)  # "429": n, "408": n, "none": n
    closed_after_s: dict[str, float] = field(default_factory=dict)  # per status: the longest
    open_fds_allowed: int = 0

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["baseline_health_p50_ms"] = _round(percentile(self.baseline_health_ms, 50))
        out["health_p50_ms"] = _round(percentile(self.health_ms, 50))
        out["health_max_ms"] = _round(max(self.health_ms, default=None))
        out["create_max_ms"] = _round(max(self.create_ms, default=None))
        return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def run_stalled_bench(
    connections: int = 2000, read_timeout_s: float = 5.0, max_per_client: int = 256
) -> StalledResult:
    allowed = raise_open_file_limit()  # the bench holds every socket at once
    result = StalledResult(connections, read_timeout_s, max_per_client, open_fds_allowed=allowed)
    args = ["--tasks", f"builtin:{TASK.split('.')[0]}", "--read-timeout", f"{read_timeout_s:g}"]
    args += ["--max-connections-per-client", str(max_per_client)]
    with ServerProcess(args) as server:
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        asyncio.run(_other_client(server.url, result))  # the baseline; a browser ready
        result.baseline_health_ms, result.health_ms = result.health_ms, []
        result.create_ms.clear()
        stalled = _stall(host, int(port), connections)
        asyncio.run(_other_client(server.url, result))
        _read_until_closed(stalled, result, deadline_s=read_timeout_s * 3 + 30)
    return result


def _stall(host: str, port: int, count: int) -> list[tuple[socket.socket, float]]:
    stalled = []
    for number in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((STALLER, 0))
        sock.connect((host, port))
        sock.sendall(_STALLS[KINDS[number % len(KINDS)]])
        sock.setblocking(False)
        stalled.append((sock, time.monotonic()))
    return stalled


async def _other_client(url: str, result: StalledResult, checks: int = 5) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=OTHER)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=60) as client:
        for _ in range(checks):
            started = time.perf_counter()
            health = await client.get("/v1/health")
            result.health_ms.append((time.perf_counter() - started) * 1000)
            health.raise_for_status()
        started = time.perf_counter()
        created = await client.post("/v1/sessions", json={"task_id": TASK})
        result.create_ms.append((time.perf_counter() - started) * 1000)
        created.raise_for_status()
        await client.delete(f"/v1/sessions/{created.json()['session_id']}")


def _read_until_closed(
    stalled: list[tuple[socket.socket, float]], result: StalledResult, deadline_s: float
) -> None:
    """Read every stalled socket until the server closes it; the status it answered (none: it
    closed without a word) and how long after opening."""
    selector = selectors.DefaultSelector()
    replies: dict[socket.socket, bytes] = {}
    for sock, opened in stalled:
        selector.register(sock, selectors.EVENT_READ, opened)
        replies[sock] = b""
    end = time.monotonic() + deadline_s
    while selector.get_map() and time.monotonic() < end:
        for key, _ in selector.select(timeout=1.0):
            sock = cast(socket.socket, key.fileobj)
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                replies[sock] += chunk
                continue
            _count(result, replies[sock], time.monotonic() - key.data)
            selector.unregister(sock)
            sock.close()
    for key in list(selector.get_map().values()):  # never closed: the bound did not hold
        result.statuses["open"] = result.statuses.get("open", 0) + 1
        key.fileobj.close()  # type: ignore[union-attr]


def _count(result: StalledResult, reply: bytes, after_s: float) -> None:
    status = reply.split(b" ", 2)[1].decode() if reply.startswith(b"HTTP/1.1 ") else "none"
    if status != "none":
        code = json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"]
        status = f"{status} {code}"
    result.statuses[status] = result.statuses.get(status, 0) + 1
    result.closed_after_s[status] = round(max(result.closed_after_s.get(status, 0.0), after_s), 2)


def stalled_table(result: StalledResult) -> Any:
    from rich.table import Table

    data = result.to_json()
    table = Table(title=f"{result.connections} stalled connections from {STALLER}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    health = f"{data['health_p50_ms']} / {data['health_max_ms']} ms"
    table.add_row(f"/v1/health from {OTHER}, p50 / max", health)
    table.add_row("/v1/health before the stalls, p50", f"{data['baseline_health_p50_ms']} ms")
    table.add_row(f"a new session from {OTHER}", f"{data['create_max_ms']} ms")
    for status, count in sorted(result.statuses.items()):
        after = result.closed_after_s.get(status)
        table.add_row(f"answered {status}", f"{count}, closed within {after} s")
    table.add_row("bounds", f"read {result.read_timeout_s:g} s, {result.max_per_client} per client")
    return table
