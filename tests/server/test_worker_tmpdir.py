"""Each local worker runs with a ``TMPDIR`` of its own, which goes when the worker goes: also
after a SIGKILL (the pool removes it once the worker's driver and browser are gone) and after
its whole server was killed (the next server on the same temp root sweeps it)."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import psutil
import pytest
from _pool_fixtures import FAST, wait_until

from webdojo.bench import soak_faults
from webdojo.browser import stale_dirs
from webdojo.observation import ObservationOptions
from webdojo.server.child_process import ServerProcess
from webdojo.server.pool.local import LocalPool, LocalPoolConfig
from webdojo.server.worker import scratch
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]


def worker_dirs(root: Path) -> list[Path]:
    return sorted(root.glob(f"{scratch.PREFIX}*"))


def running(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE  # an orphan's zombie waits for init
    except psutil.NoSuchProcess:
        return False


async def test_killed_worker_tmpdir_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pool = LocalPool(LocalPoolConfig(workers=1, worker=WorkerConfig(warm_contexts=1)))
    await pool.start()
    try:
        await pool.create("about:blank", FAST, ObservationOptions())
        [first] = worker_dirs(tmp_path)
        assert scratch.slot_of(first) == "local-0"
        assert any(first.iterdir())  # Chromium's profile and Playwright's files live there
        pid = (await pool.worker_stats())["local-0"]["pid"]
        # the soak tells which worker a renderer belongs to by it (this worker's renderers:
        # other tests' pools may still run browsers under this process)
        assert {soak_faults.slot_of(r) for r in soak_faults.renderers(pid)} == {"local-0"}
        assert os.environ.get("TMPDIR") != str(first)
        assert psutil.Process(pid).environ()["TMPDIR"] == str(first)
        os.kill(pid, signal.SIGKILL)

        async def replaced() -> bool:
            stats = await pool.worker_stats()
            return stats.get("local-0", {}).get("pid") not in (None, pid)

        await wait_until(replaced, "a new worker in the slot")
        await wait_until(lambda: not first.exists(), "the dead worker's TMPDIR removed")
        assert len(worker_dirs(tmp_path)) == 1  # the new worker's own
    finally:
        await pool.aclose()
    assert worker_dirs(tmp_path) == []


@pytest.mark.parametrize("workers", ["1", "0"])
async def test_killed_server_holdersdirs_are_swept_by_the_next(
    tmp_path: Path, workers: str
) -> None:
    """With ``--workers 0`` the browser runs in the server process, in a directory the
    server adopts as its own ``TMPDIR`` (slot ``inline``)."""
    args = ["--workers", workers, "--max-sessions", "2"]
    env = {"TMPDIR": str(tmp_path)}
    killed = ServerProcess(args, env=env).start()
    try:
        [old] = worker_dirs(tmp_path)
        assert scratch.slot_of(old) == ("local-0" if workers == "1" else "inline")
        assert scratch.stale(tmp_path) == []  # its server lives
        holders = scratch.users(old)
        assert holders  # the worker (with one), the driver, Chromium
        # the driver and Chromium in the browser host's directory inside it (host_dir.py)
        assert any(h.environ()["TMPDIR"].startswith(f"{old}/webdojo-host-") for h in holders)
        assert any(old.glob("webdojo-host-*/playwright_chromiumdev_profile-*"))
        os.kill(killed.pid, signal.SIGKILL)
    finally:
        killed.stop()
    # The orphaned worker or driver sees its channel close and exits, browser and all.
    await wait_until(lambda: not any(map(running, holders)), "the orphans gone")
    assert old.exists() and scratch.stale(tmp_path) == [old]
    with ServerProcess(args, env=env):
        await wait_until(lambda: not old.exists(), "the killed server's worker dir swept")
        assert len(worker_dirs(tmp_path)) == 1
    assert list(tmp_path.iterdir()) == []  # no profile, download root or proxy socket left


def test_a_process_adopts_a_tmpdir_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a Ray actor does before its browser starts (Ray gives it the node's TMPDIR)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    own = scratch.adopt("ray-3")
    assert own.parent == tmp_path and own.is_dir()
    assert os.environ["TMPDIR"] == str(own) and tempfile.gettempdir() == str(own)
    assert scratch.slot_of(own) == "ray-3"
    assert stale_dirs.owner_pid(own, scratch.PREFIX) == os.getpid()
    assert own not in scratch.stale(tmp_path)  # its owner, this process, is alive
