"""The soak's faults: what they are, when they fire, and how they are made.

Process faults come from outside, as they do in production: a SIGKILL of a renderer (a tab
crash: Chromium shows the page as crashed, as after ``chrome://crash``), of a worker's browser,
of a worker process or of the server itself (which the soak then starts again on the same
port). The processes are found in the server's process tree with psutil:

    server (python) -> worker (python) -> Playwright driver (node) -> Chromium -> renderers

Page faults are pages of a small loopback site (``FaultSite``) that hang, load slowly, open
dialogs, popups or downloads; the soak drives a session of its own onto them.

Faults fire at step numbers drawn once from a seeded generator (``schedule``), never from the
clock, so that a run with the same seed injects the same faults at the same steps.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from enum import StrEnum
from http.server import BaseHTTPRequestHandler

import psutil

from webdojo.errors import ConfigError
from webdojo.local_http import LoopbackHTTPServer
from webdojo.server.worker import scratch


class FaultKind(StrEnum):
    TAB_CRASH = "tab_crash"  # SIGKILL of one renderer process
    BROWSER_KILL = "browser_kill"  # SIGKILL of one worker's Chromium (its main process)
    WORKER_KILL = "worker_kill"  # SIGKILL of one worker process
    SERVER_KILL = "server_kill"  # SIGKILL of the server, then a restart on the same port
    HUNG_NAVIGATION = "hung_navigation"  # goto a URL that never answers
    SLOW_PAGE = "slow_page"  # goto a URL that answers after a while
    DIALOG = "dialog"  # a click that opens alert, confirm and prompt dialogs
    POPUP = "popup"  # a click that opens popups (window.open)
    DOWNLOAD = "download"  # a click on a download link


PROCESS_KINDS = (
    FaultKind.TAB_CRASH,
    FaultKind.BROWSER_KILL,
    FaultKind.WORKER_KILL,
    FaultKind.SERVER_KILL,
)
PAGE_KINDS = tuple(k for k in FaultKind if k not in PROCESS_KINDS)

# Faults per step at the defaults: on 10k steps, 20 tab crashes, 5 browser and 5 worker kills,
# 2 server kills and 10 of each page fault.
DEFAULT_RATES: dict[FaultKind, float] = {
    FaultKind.TAB_CRASH: 0.002,
    FaultKind.BROWSER_KILL: 0.0005,
    FaultKind.WORKER_KILL: 0.0005,
    FaultKind.SERVER_KILL: 0.0002,
    **dict.fromkeys(PAGE_KINDS, 0.001),
}


def parse_faults(text: str | None) -> dict[FaultKind, float]:
    """``"tab_crash=0.01,server_kill=0"`` over the defaults; ``"none"`` turns every fault off."""
    rates = dict(DEFAULT_RATES)
    if text is None or not text.strip():
        return rates
    if text.strip() == "none":
        return dict.fromkeys(FaultKind, 0.0)
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            kind, rate = FaultKind(name.strip()), float(value)
        except ValueError as exc:
            known = ", ".join(k.value for k in FaultKind)
            raise ConfigError(f"bad fault {part!r}: use kind=rate with kind in {known}") from exc
        if not 0 <= rate <= 1:
            raise ConfigError(f"a fault rate is per step, between 0 and 1, not {rate}")
        rates[kind] = rate
    return rates


def schedule(
    rates: dict[FaultKind, float], steps: int, seed: int, *, warmup: float = 0.1
) -> list[tuple[int, FaultKind]]:
    """(step number, kind) pairs, sorted. Every kind with a rate above 0 fires at least once
    (``round(rate * steps)`` times otherwise); faults are spread evenly over the steps after
    the warm-up share (so that two never fire on the same step) in an order drawn from
    ``seed``."""
    kinds: list[FaultKind] = []
    for kind in FaultKind:
        if rates.get(kind, 0.0) > 0:
            kinds += [kind] * max(1, round(rates[kind] * steps))
    if not kinds:
        return []
    random.Random(seed).shuffle(kinds)
    first = max(1, int(steps * warmup))
    gap = max(1.0, (steps * 0.95 - first) / len(kinds))
    return [(first + int(i * gap), kind) for i, kind in enumerate(kinds)]


# --- processes ----------------------------------------------------------------------------------


def _flag(proc: psutil.Process, prefix: str) -> str | None:
    """The value of the first ``--prefix=value`` argument of a process (None if absent)."""
    try:
        for arg in proc.cmdline():
            if arg.startswith(prefix):
                return arg[len(prefix) :]
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    return None


def tree(pid: int) -> list[psutil.Process]:
    """The process and its descendants (those alive now)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def workers(server_pid: int) -> list[psutil.Process]:
    """The server's worker processes, by pid."""
    found = [p for p in tree(server_pid)[1:] if _is_worker(p)]
    return sorted(found, key=lambda p: p.pid)


def _is_worker(proc: psutil.Process) -> bool:
    try:
        return "webdojo.server.worker.main" in proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def browsers(server_pid: int) -> list[psutil.Process]:
    """Each worker's Chromium main process (the one with no ``--type=``), by pid."""
    found = []
    for proc in tree(server_pid):
        with _gone_ok():
            if _is_browser(proc):
                found.append(proc)
    return sorted(found, key=lambda p: p.pid)


def _is_browser(proc: psutil.Process) -> bool:
    return "chrom" in proc.name() and _flag(proc, "--type=") is None


def browser_of(proc: psutil.Process) -> psutil.Process | None:
    """The Chromium main process a renderer (or other child process) belongs to."""
    with contextlib.suppress(psutil.Error):
        for each in proc.parents():
            with _gone_ok():
                if _is_browser(each):
                    return each
    return None


def gone(proc: psutil.Process) -> bool:
    """The process has exited (a zombie counts: it is dead, only not yet reaped)."""
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def renderers(server_pid: int) -> list[psutil.Process]:
    """Every renderer process of every browser of the server, by pid."""
    found = [p for p in tree(server_pid) if _flag(p, "--type=") == "renderer"]
    return sorted(found, key=lambda p: p.pid)


class _gone_ok:
    """Ignore processes that ended while being looked at."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> bool:
        return exc_type is not None and issubclass(exc_type, psutil.Error)


def kill(proc: psutil.Process) -> bool:
    """SIGKILL; False when the process was already gone."""
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def slot_of(proc: psutil.Process) -> str | None:
    """The pool slot (``local-0``) of a worker's process, or of one of its browser's: each
    worker runs in a scratch directory of its own, named after its slot, which its Playwright
    driver and Chromium inherit as ``TMPDIR``. A renderer's environment is not readable (its
    sandbox makes it undumpable): the nearest ancestor that shows one is asked."""
    with contextlib.suppress(psutil.Error):
        for each in [proc, *proc.parents()]:
            with contextlib.suppress(psutil.Error):
                slot = scratch.slot_of(each.environ().get("TMPDIR", ""))
                if slot is not None:
                    return slot
    return None


def pick(procs: list[psutil.Process], rng: random.Random) -> psutil.Process | None:
    return rng.choice(procs) if procs else None


# --- the fault site -----------------------------------------------------------------------------

PLAIN = b"<!doctype html><title>plain</title><h1>plain</h1><a href='/plain'>again</a>"
PAGES: dict[str, bytes] = {
    "/plain": PLAIN,
    "/dialog": b"<!doctype html><title>dialog</title><button onclick=\"alert('a');"
    b"confirm('b');prompt('c')\">go</button>",
    "/popup": b'<!doctype html><title>popup</title><button onclick="for(let i=0;i<3;i++)'
    b"window.open('/plain?popup='+i)\">go</button>",
    "/download": b"<!doctype html><title>download</title>"
    b"<a href='/file.bin' download='soak.bin'>go</a>",
}
SLOW_S = 2.0  # how long /slow takes to answer


class FaultSite:
    """A loopback site of fault pages: /plain, /hang (answers only when the site closes),
    /slow, /dialog, /popup, /download (and /file.bin, 64 KiB)."""

    def __init__(self) -> None:
        closing = threading.Event()
        self._closing = closing

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass  # the soak's output is its report

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path == "/hang":
                    closing.wait()  # hold the connection: a navigation that never ends
                    return
                if path == "/slow":
                    time.sleep(SLOW_S)
                    path = "/plain"
                if path == "/file.bin":
                    self._send(b"\0" * 65536, "application/octet-stream")
                elif path in PAGES:
                    self._send(PAGES[path], "text/html")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = LoopbackHTTPServer(Handler, name="webdojo-soak-faults")

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>`` (for the server's ``--allow-host``)."""
        return self._server.base_url

    def url(self, path: str) -> str:
        return self._server.base_url + path

    def __enter__(self) -> FaultSite:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self._server.close()
