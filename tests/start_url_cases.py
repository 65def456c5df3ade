"""What the start-URL tests share (tests/browser, tests/rollout, tests/server): the spellings
of a loopback or private address that the network policy must refuse as a session's start
URL, and a decoy server on loopback that counts every request it gets (a refused start URL
must leave it at 0)."""

from __future__ import annotations

import http.server
import threading

from webdojo.local_http import LoopbackHTTPServer

# The decoy's address in the spellings an agent's goto is refused in; {p} is its port. The
# 169.254/10/192.168 ones are refused before anything is sent, so they reach no one either.
SPELLINGS = {
    "dotted": "127.0.0.1:{p}",
    "localhost": "localhost:{p}",
    "decimal": "2130706433:{p}",
    "hex": "0x7f000001:{p}",
    "octal": "0177.0.0.1:{p}",
    "short2": "127.1:{p}",
    "metadata": "169.254.169.254:{p}",
    "private10": "10.0.0.1:{p}",
    "private192": "192.168.0.1:{p}",
}


class Decoy:
    """A loopback server that answers anything and remembers every path it was asked for."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        lock, seen = threading.Lock(), self.seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with lock:
                    seen.append(self.path)
                body = b"<!doctype html><title>decoy</title>reached"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = LoopbackHTTPServer(Handler).start()
        self.port = int(self.server.httpd.server_address[1])
        self.url = self.server.base_url
