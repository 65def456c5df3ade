"""A library process killed with its whole process group leaves Chromium's profile behind
(its driver dies with it); the next ``BrowserHost`` on that temp root removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from webdojo.browser import host_dir
from webdojo.browser.host import BrowserHost

pytestmark = pytest.mark.browser

LIBRARY = """
import asyncio
from webdojo.browser.host import BrowserHost

async def main():
    host = await BrowserHost.launch()
    print(host.host_dir.path, host.profile, flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def _kill_library_process(tmp_path: Path) -> tuple[Path, Path]:
    """Start a process that launches a host in ``tmp_path``, then SIGKILL its process group
    (the driver with it, as an OOM kill of a cgroup does); returns its (host dir, profile)
    once nothing runs with that profile any more."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    with subprocess.Popen(
        [sys.executable, "-c", LIBRARY], env=env, stdout=subprocess.PIPE, text=True,
        start_new_session=True,
    ) as proc:  # fmt: skip
        try:
            assert proc.stdout is not None
            dir_name, profile_name = proc.stdout.readline().split()
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    profile = Path(profile_name)
    deadline = time.monotonic() + 60  # Chromium exits once it sees its pipe closed
    while _running_with(profile) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running_with(profile)
    return Path(dir_name), profile


def _running_with(profile: Path) -> bool:
    for proc in psutil.process_iter(["cmdline"]):
        if any(str(profile) in arg for arg in proc.info["cmdline"] or ()):
            return True
    return False


async def test_a_killed_library_process_leaves_nothing_after_the_next_launch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert host_dir.HOOKED  # else Playwright renamed what host_dir.py wraps: see there
    left_dir, profile = _kill_library_process(tmp_path)
    assert left_dir.parent == tmp_path and left_dir.name.startswith(host_dir.PREFIX)
    assert profile.parent == left_dir and profile.is_dir()  # nobody removed it
    assert [p.name for p in tmp_path.iterdir()] == [left_dir.name]  # all of it in there
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # Python's cached temp root
    host = await BrowserHost.launch()
    try:
        assert not left_dir.exists()
        assert host.host_dir is not None and host.profile is not None
        assert host.profile.parent == host.host_dir.path
        assert host_dir.sweep_stale(tmp_path) == 0  # a live host's directory stays
        assert host.profile.is_dir()
    finally:
        await host.aclose()
    assert list(tmp_path.iterdir()) == []


def test_the_sweep_keeps_directories_of_live_processes(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = tmp_path / f"{host_dir.PREFIX}{dead}-abc"
    (stale / "playwright_chromiumdev_profile-x").mkdir(parents=True)
    mine = tmp_path / f"{host_dir.PREFIX}{os.getpid()}-abc"
    mine.mkdir()
    other = tmp_path / "webdojo-hostel-1-abc"  # not a host directory
    other.mkdir()
    assert host_dir.sweep_stale(tmp_path) == 1
    assert not stale.exists() and mine.is_dir() and other.is_dir()
