"""A browser host's own temporary directory (``webdojo-host-<pid>-<random>`` in the temp
root), the ``TMPDIR`` of its Playwright driver and Chromium: a host killed before it could
clean up is found by its owner's pid, and the next host started on that temp root removes it.

The driver makes Chromium's profile and its artifacts directory in its ``TMPDIR`` and removes
them when it sees the browser exit. A library process SIGKILLed alone is fine: its driver sees
the pipe close and cleans up. Killed with its whole process group (an OOM kill of a cgroup, a
cancelled batch job, ``docker kill``), the driver dies too, Chromium exits when its pipe
closes, and both directories used to stay in the shared temp root with nothing naming their
owner.

Playwright reads the driver's environment from ``os.environ`` when the driver starts and has
no option for it; changing ``os.environ`` would leak into every thread. So the driver's
environment function is wrapped once to add ``TMPDIR`` from a context variable, which only the
launch that set it sees (the driver starts in a task created from it). If a Playwright
release renames that function, hosts run as before in the shared temp root
(``HOOKED`` is False) and ``tests/browser/test_host_dir.py`` says so.

A server's workers each have a private ``TMPDIR`` already (``server.worker.scratch``); their
hosts' directories nest in it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from webdojo.browser import stale_dirs

PREFIX = "webdojo-host-"  # + "<pid>-<random>"

_driver_tmpdir: ContextVar[str | None] = ContextVar("webdojo_driver_tmpdir", default=None)


def _hook() -> bool:
    """Wrap Playwright's driver environment once; False where it cannot be found."""
    try:
        from playwright._impl import transport
    except ImportError:
        return False
    original: Callable[[], dict[str, Any]] | None = getattr(transport, "get_driver_env", None)
    if original is None:
        return False

    def driver_env() -> dict[str, Any]:
        env = original()
        tmpdir = _driver_tmpdir.get()
        if tmpdir is not None:
            env.update(TMPDIR=tmpdir, TMP=tmpdir, TEMP=tmpdir)
        return env

    transport.get_driver_env = driver_env
    return True


HOOKED = _hook()


class HostDir:
    """Made with ``HostDir.make()`` (after a sweep of those whose owner is gone); the driver
    started inside ``driver_tmpdir()`` uses it; ``remove`` at the host's close."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls) -> HostDir:
        sweep_stale()
        return cls(Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")))

    @contextlib.contextmanager
    def driver_tmpdir(self) -> Iterator[None]:
        """A Playwright driver started in here gets this directory as its ``TMPDIR``."""
        token = _driver_tmpdir.set(str(self.path))
        try:
            yield
        finally:
            _driver_tmpdir.reset(token)

    def remove(self) -> None:
        """Remove the directory with whatever is left in it. Never raises."""
        shutil.rmtree(self.path, ignore_errors=True)


def sweep_stale(root: Path | None = None) -> int:
    """Remove the host directories under ``root`` (the temp root) whose process is gone;
    returns how many."""
    return stale_dirs.sweep(root or Path(tempfile.gettempdir()), PREFIX)
