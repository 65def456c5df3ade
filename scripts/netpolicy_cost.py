"""Page-load time with and without the network policy's proxy (a quick local measurement).

A loopback site serves a page with 20 small subresources and one 1 MB image; sessions load it
with the policy on (through the proxy) and off, interleaved, and the medians are printed.

    PYTHONPATH=src python scripts/netpolicy_cost.py [--loads 40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import statistics
import time

from webdojo.actions import Goto
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.local_http import LoopbackHTTPServer

_PAGE = (
    "<title>cost</title>"
    + "".join(f'<img src="/small/{i}.png"><script src="/small/{i}.js"></script>' for i in range(10))
    + '<img src="/big.bin">'
)


class _Site(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

    def log_message(self, format: str, *args: object) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(ConnectionResetError):  # a context closed with it open
            super().handle()

    def do_GET(self) -> None:
        if self.path.startswith("/big"):
            body, kind = b"x" * 1_000_000, "application/octet-stream"
        elif self.path.startswith("/small"):
            body, kind = b"//" + b"y" * 2000, "text/javascript"
        else:
            body, kind = _PAGE.encode(), "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


async def _session(host: BrowserHost, url: str, policy: NetworkPolicy) -> BrowserSession:
    session = await host.new_session(SessionOptions(network=policy))
    await session.goto(url)  # the start URL: its origin is allowed
    return session


_CPU: dict[int, list[float]] = {}  # id(session) -> this process's CPU ms per load


async def _load_ms(session: BrowserSession, url: str) -> float:
    start, cpu = time.perf_counter(), time.process_time()
    await session.execute(Goto(url=url))
    _CPU.setdefault(id(session), []).append((time.process_time() - cpu) * 1000)
    return (time.perf_counter() - start) * 1000


async def main(loads: int) -> None:
    with LoopbackHTTPServer(_Site) as site:
        url = site.base_url + "/page"
        async with await BrowserHost.launch() as host:
            on_session = await _session(host, url, NetworkPolicy())
            off_session = await _session(host, url, NetworkPolicy(enabled=False))
            for i in range(3):  # warm-up
                await _load_ms(on_session, f"{url}?w={i}")
                await _load_ms(off_session, f"{url}?w={i}")
            on: list[float] = []
            off: list[float] = []
            for i in range(loads):  # alternated, so that load on the machine hits both alike
                first, second = (on, off) if i % 2 else (off, on)
                sessions = (on_session, off_session) if i % 2 else (off_session, on_session)
                first.append(await _load_ms(sessions[0], f"{url}?n={i}"))
                second.append(await _load_ms(sessions[1], f"{url}?n={i}"))
            cpu_on = statistics.median(_CPU[id(on_session)][3:])
            cpu_off = statistics.median(_CPU[id(off_session)][3:])
    med_on, med_off = statistics.median(on), statistics.median(off)
    diffs = statistics.median(a - b for a, b in zip(on, off, strict=True))
    print(f"loads per mode: {len(on)}; page: 20 subresources + 1 MB image, keep-alive server")
    print(f"policy on : median {med_on:.1f} ms  p90 {statistics.quantiles(on, n=10)[-1]:.1f} ms")
    print(f"policy off: median {med_off:.1f} ms  p90 {statistics.quantiles(off, n=10)[-1]:.1f} ms")
    print(
        f"cost: {med_on - med_off:+.1f} ms per load ({med_on / med_off - 1:+.1%}); "
        f"median of paired differences {diffs:+.1f} ms"
    )
    print(
        f"python CPU per load (Playwright client + proxy): on {cpu_on:.1f} ms, off {cpu_off:.1f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=40)
    asyncio.run(main(parser.parse_args().loads))
