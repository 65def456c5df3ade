"""The documentation site, built once per test session (a strict build with the generated
references takes tens of seconds), and served on loopback for the browser tests."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from docs_pages import ROOT

# the banners MkDocs' plugins print about MkDocs 2 are noise in a test log
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
BUILD_TIMEOUT_S = 400


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mkdocs build --strict`` into a temp dir; a failed build fails every test using it,
    with mkdocs' own messages (they name the page)."""
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    if proc.returncode != 0:
        problems = [
            line for line in proc.stderr.splitlines() if "WARNING" in line or "ERROR" in line
        ]
        pytest.fail(
            "the strict docs build failed:\n" + "\n".join(problems or [proc.stderr[-4000:]])
        )
    return out


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a page left before its last resource was sent: not an error of the site


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (search needs http, not file://)."""
    handler = functools.partial(_Quiet, directory=str(built_site))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join()
