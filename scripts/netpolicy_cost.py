"""Page-load time with and without the network policy's proxy (a quick local measurement).

A loopback site serves a page with 20 small subresources and one 1 MB image; sessions load it
with the policy on (through the proxy) and off, interleaved, and the medians are printed.

    PYTHONPATH=src python scripts/netpolicy_cost.py [--loads 30]
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import statistics
import time

from webdojo.actions import Goto
from webdojo.browser import BrowserHost, SessionOptions
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


async def _load_ms(host: BrowserHost, url: str, policy: NetworkPolicy, loads: int) -> list[float]:
    session = await host.new_session(SessionOptions(network=policy))
    try:
        await session.goto(url)  # the start URL: its origin is allowed
        times = []
        for i in range(loads):
            start = time.perf_counter()
            await session.execute(Goto(url=f"{url}?n={i}"))
            times.append((time.perf_counter() - start) * 1000)
        return times
    finally:
        await session.aclose()


async def main(loads: int) -> None:
    with LoopbackHTTPServer(_Site) as site:
        url = site.base_url + "/page"
        async with await BrowserHost.launch() as host:
            await _load_ms(host, url, NetworkPolicy(), 3)  # warm-up
            on: list[float] = []
            off: list[float] = []
            for _ in range(3):  # interleaved rounds
                on += await _load_ms(host, url, NetworkPolicy(), loads // 3)
                off += await _load_ms(host, url, NetworkPolicy(enabled=False), loads // 3)
    med_on, med_off = statistics.median(on), statistics.median(off)
    print(f"loads per mode: {len(on)}; page: 21 subresources + 1 MB image")
    print(f"policy on : median {med_on:.1f} ms  p90 {statistics.quantiles(on, n=10)[-1]:.1f} ms")
    print(f"policy off: median {med_off:.1f} ms  p90 {statistics.quantiles(off, n=10)[-1]:.1f} ms")
    print(f"cost: {med_on - med_off:+.1f} ms per page load ({med_on / med_off - 1:+.1%})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=30)
    asyncio.run(main(parser.parse_args().loads))
