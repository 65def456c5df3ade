"""A command started with SIGINT ignored (a background job of a script: POSIX hands it SIG_IGN)
or blocked still stops on SIGINT, as the commands rely on: ``webdojo`` takes the default
handling back before any command runs (``cli/signals.py``)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def _as_a_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def test_a_command_started_with_sigint_ignored_and_blocked_stops_on_it(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "webdojo.cli", "view", str(tmp_path), "--port", "0"]
    proc = subprocess.Popen(
        command,
        preexec_fn=_as_a_background_job,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" on ")[1].split()[0]
        deadline = time.monotonic() + 60
        while True:  # serving (its Ctrl-C handling is in place) before the signal is sent
            try:
                httpx.get(url, timeout=10).raise_for_status()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the viewer never answered"
                time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0  # stopped as from a terminal's Ctrl-C
    finally:
        if proc.poll() is None:  # a test that fails must not leave its child running
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
