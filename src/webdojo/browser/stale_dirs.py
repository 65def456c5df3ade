"""Temporary directories named after the process that owns them (``<prefix><pid>-...``), and
the sweep that removes those whose owner is gone (killed before it could clean up).

Shared by the download roots (``webdojo.browser.downloads``, owned by a browser host's
process) and the worker scratch directories (``webdojo.server.worker.scratch``, owned by the
server process that started the worker)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def owner_pid(path: Path, prefix: str) -> int | None:
    """The pid in ``<prefix><pid>-...``; None for a name of another form."""
    pid = path.name.removeprefix(prefix).partition("-")[0]
    return int(pid) if path.name.startswith(prefix) and pid.isdigit() else None


def stale_dirs(root: Path, prefix: str) -> list[Path]:
    """The directories under ``root`` named ``<prefix><pid>-...`` whose process is gone."""
    found = []
    for entry in root.glob(f"{prefix}*"):
        pid = owner_pid(entry, prefix)
        if pid is not None and not pid_alive(pid):
            found.append(entry)
    return found


def sweep(root: Path, prefix: str) -> int:
    """Remove the stale directories under ``root``; returns how many."""
    found = stale_dirs(root, prefix)
    for entry in found:
        shutil.rmtree(entry, ignore_errors=True)
    return len(found)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
