"""kiwix-serve (Debian's ``kiwix-tools``) as a child process on loopback.

Started on a free port of 127.0.0.1 with external links blocked (``--blockexternal``) and no
library button, polled until its catalog answers, and killed on ``close()``. The book's URL
prefix is read from the catalog (kiwix-serve names books after their file, and versions differ
in how), so nothing here guesses kiwix's URL scheme beyond ``/search?content=BOOK``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

from webdojo.asgi import LOOPBACK, free_port
from webdojo.errors import ConfigError, MissingDependency

INSTALL_KIWIX = "apt-get install kiwix-tools  (Debian/Ubuntu; it provides kiwix-serve)"
START_TIMEOUT_S = 20.0  # a large ZIM opens in well under a second; this is for slow disks
STOP_TIMEOUT_S = 5.0
# loopback never goes through a proxy, whatever http_proxy says
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_BOOK_LINK = re.compile(r'<link\s+type="text/html"\s+href="/([^"]+)"')


def kiwix_serve_path() -> str | None:
    """The ``kiwix-serve`` program on PATH, or None."""
    return shutil.which("kiwix-serve")


class KiwixServer:
    """kiwix-serve serving one ZIM on 127.0.0.1 until ``close()``."""

    def __init__(self, zim: Path, port: int = 0) -> None:
        program = kiwix_serve_path()
        if program is None:
            raise MissingDependency(f"kiwix-serve is not installed: {INSTALL_KIWIX}")
        self.port = port or free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        command = [
            program,
            "--address",
            LOOPBACK,
            "--port",
            str(self.port),
            "--blockexternal",
            "--nolibrarybutton",
            "--attachToProcess",
            str(os.getpid()),
            str(zim),
        ]
        # a file, not a pipe: nobody reads it while the server runs (closed in close())
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self._log)
        try:
            self.book = self._wait_for_book()
        except BaseException:
            self.close()
            raise

    @property
    def main_url(self) -> str:
        return f"{self.url}/{self.book}/"

    @property
    def search_url(self) -> str:
        """kiwix-serve's full-text search page (needs a ZIM with a full-text index)."""
        return f"{self.url}/search?content={quote(self.book)}&pattern="

    def _wait_for_book(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._log.seek(0)
                err = self._log.read().decode(errors="replace")
                raise ConfigError(
                    f"kiwix-serve exited with code {self._process.returncode}: "
                    f"{err.strip()[-500:] or '(no message)'}"
                )
            try:
                with _DIRECT.open(f"{self.url}/catalog/v2/entries", timeout=2) as reply:
                    catalog = reply.read().decode("utf-8", "replace")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
                continue
            found = _BOOK_LINK.search(catalog)
            if found is None:
                raise ConfigError("kiwix-serve started but lists no book in its catalog")
            return found.group(1)
        raise ConfigError(f"kiwix-serve did not answer on {self.url} within {START_TIMEOUT_S} s")

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._log.close()
