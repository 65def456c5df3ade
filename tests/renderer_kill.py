"""Killing Chromium's renderers from outside, as a crash would (tests of faults)."""

from __future__ import annotations

import os
import signal

import psutil


def kill_renderers(root_pid: int) -> int:
    """SIGKILL every Chromium renderer below ``root_pid``; how many there were."""
    killed = 0
    for proc in psutil.Process(root_pid).children(recursive=True):
        try:
            if "--type=renderer" in proc.cmdline():
                os.kill(proc.pid, signal.SIGKILL)
                killed += 1
        except (psutil.NoSuchProcess, ProcessLookupError):
            continue
    return killed
