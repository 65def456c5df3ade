"""``WorkerConfig.spare_browser``: a browser launched ahead replaces a dead one without a launch,
a spare that died while it waited is never handed out, and closing the worker leaves no
browser behind (real Chromium, real SIGKILLs)."""

from __future__ import annotations

import os
import signal

import psutil
import pytest
from _pool_fixtures import FAST, Site, wait_until

from webdojo.actions import Click
from webdojo.errors import BrowserClosed
from webdojo.observation import ObservationOptions
from webdojo.server.worker.core import Worker, WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOT = ObservationOptions()
SPARE = WorkerConfig(warm_contexts=1, warm_options=FAST, spare_browser=True)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _spare_pid(worker: Worker) -> int:
    await wait_until(lambda: worker.stats()["spare_pid"] is not None, "the spare has launched")
    pid = worker.stats()["spare_pid"]
    assert isinstance(pid, int) and pid not in worker.stats()["browser_pids"]
    return pid


async def test_a_dead_browser_is_replaced_by_the_spare(site: Site) -> None:
    async with Worker(SPARE) as worker:
        spare = await _spare_pid(worker)
        session_id, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        os.kill(worker.stats()["browser_pids"][0], signal.SIGKILL)
        with pytest.raises(BrowserClosed):
            await worker.step(session_id, Click(x=5, y=5), SHOT)
        await worker.close(session_id)
        session_id, obs = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        assert obs.title == "Counter"
        stats = worker.stats()
        assert stats["browser_pids"] == [spare] and stats["spares_taken"] == 1
        assert stats["browser_restarts"] == 1
        await worker.close(session_id)
        # and the next spare is launched, to replace this one in turn
        assert await _spare_pid(worker) != spare
    assert not _alive(spare)


async def test_a_spare_that_died_while_waiting_is_not_handed_out(site: Site) -> None:
    async with Worker(SPARE) as worker:
        spare = await _spare_pid(worker)
        os.kill(spare, signal.SIGKILL)
        await wait_until(lambda: not _alive(spare), "the spare is dead")
        os.kill(worker.stats()["browser_pids"][0], signal.SIGKILL)
        # the watchdog replaces the dead browser: with a fresh launch, not the dead spare
        await wait_until(lambda: worker.stats()["browser_restarts"] == 1, "a relaunch")
        session_id, obs = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        assert obs.title == "Counter"
        stats = worker.stats()
        assert stats["spares_taken"] == 0 and stats["browser_pids"] != [spare]
        await worker.close(session_id)


async def test_closing_the_worker_closes_its_spare() -> None:
    async with Worker(SPARE) as worker:
        spare = await _spare_pid(worker)
        active = worker.stats()["browser_pids"][0]
    assert not _alive(spare) and not _alive(active)


async def test_no_spare_unless_asked() -> None:
    async with Worker(WorkerConfig(warm_contexts=0)) as worker:
        stats = worker.stats()
        assert stats["spare_pid"] is None and stats["spares_taken"] == 0
