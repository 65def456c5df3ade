"""Each worker's own temporary directory (its ``TMPDIR``), removed with the worker.

Chromium's profile, Playwright's artifacts and the worker's downloads all go to ``TMPDIR``.
A worker that exits in order removes its own; one that is SIGKILLed cannot, and its Playwright
driver and Chromium, which notice the death only when their pipes close, can still write
there for a few seconds. So each worker gets a directory of its own, removed once nothing runs
there any more: no live process whose ``TMPDIR`` is it or a directory in it (the worker
inherits it; its browser host gives the driver, Chromium and its renderers a directory of their
own inside it, ``browser.host_dir``). Stragglers past ``GRACE_S`` are killed first.

* A local worker process: the server makes the directory (``webdojo-worker-<server pid>-
  <slot>-<random>`` in its temp root), starts the worker with it as ``TMPDIR`` and removes it
  when the worker has exited. A killed server leaves them to the next server started on the
  same temp root, which sweeps those of dead servers (``stale``).
* A Ray actor: Ray starts it with the node's ``TMPDIR``, and its node may be another machine,
  so the actor makes its own (``adopt``, named after the actor's pid) before its browser
  starts, and removes it at shutdown. A killed actor's directory is swept by the next actor
  started on that node, or by the next local server on that temp root.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

import psutil

from webdojo.background import Background
from webdojo.browser import stale_dirs

PREFIX = "webdojo-worker-"  # + "<owner pid>-<slot>-<random>": the server, or a Ray actor
GRACE_S = 10.0  # how long a dead worker's driver and browser get to exit by themselves
POLL_S = 0.1


def new_dir(slot: str) -> Path:
    """A fresh directory for a worker of ``slot``, owned by this process (the server's, or
    the Ray actor's that adopts it)."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{slot}-"))


def adopt(slot: str) -> Path:
    """A fresh directory owned by this process, made its ``TMPDIR`` from now on: for the
    browser this process launches next, and for ``tempfile`` here (its cached root reset)."""
    path = new_dir(slot)
    os.environ["TMPDIR"] = str(path)
    tempfile.tempdir = None
    return path


def slot_of(path: str | Path) -> str | None:
    """The slot name in a worker directory's name (``local-0``); None for another name."""
    name = Path(path).name
    if not name.startswith(PREFIX):
        return None
    _pid, _, rest = name.removeprefix(PREFIX).partition("-")
    return rest.rpartition("-")[0] or None


def users(path: Path) -> list[psutil.Process]:
    """The live processes started with ``path``, or a directory in it, as their ``TMPDIR`` (a
    browser host gives its driver and Chromium one of their own: ``browser.host_dir``)."""
    found = []
    wanted = str(path)
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            tmpdir = proc.environ().get("TMPDIR", "")
            inside = tmpdir == wanted or tmpdir.startswith(wanted + os.sep)
            if inside and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
    return found


async def remove_when_unused(path: Path, grace_s: float = GRACE_S) -> None:
    """Wait until no process uses ``path`` (killing those left after ``grace_s``), then remove
    it. Never raises."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while left := await asyncio.to_thread(users, path):
        if loop.time() > deadline:
            for proc in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
        await asyncio.sleep(POLL_S)
    await asyncio.to_thread(shutil.rmtree, path, True)


class OwnTmpdir:
    """A ``TMPDIR`` of this process's own for the browser it launches next (a Ray actor, a
    ``--workers 0`` server): taken after sweeping those of dead owners, removed at close."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self._cleanups = Background()

    def take(self, slot: str) -> Path:
        sweep_stale(self._cleanups)
        self.path = adopt(slot)
        return self.path

    async def aclose(self, grace_s: float) -> None:
        """Remove the directory once nothing uses it, and finish the sweep."""
        if self.path is not None:
            await remove_when_unused(self.path, grace_s=grace_s)
            self.path = None
        await self._cleanups.wait(grace_s)


def sweep_stale(cleanups: Background) -> None:
    """Remove, in the background, the worker directories whose owner is gone (a killed server
    or Ray actor), each once nothing uses it any more."""
    for path in stale():
        cleanups.spawn(remove_when_unused(path), quiet=True)


def stale(root: Path | None = None) -> list[Path]:
    """Worker directories under the temp root whose server process is gone."""
    return stale_dirs.stale_dirs(root or Path(tempfile.gettempdir()), PREFIX)
