"""Workers retire after ``max_worker_sessions``: a new worker takes new sessions, the old one
finishes its own and then stops. No session is lost, and nothing is left running."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import psutil
import pytest
from _pool_fixtures import FAST, PATIENT, Site, wait_until

from webdojo.actions import Click, Goto
from webdojo.errors import SessionLost
from webdojo.observation import ObservationOptions
from webdojo.server.pool.local import LocalPool, LocalPoolConfig
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

SHOT = ObservationOptions()


@pytest.fixture
async def pool() -> AsyncIterator[LocalPool]:
    config = LocalPoolConfig(workers=1, worker=WorkerConfig(warm_contexts=0), max_worker_sessions=2)
    local = LocalPool(config)
    await local.start()
    yield local
    await local.aclose()


async def pid_of(pool: LocalPool) -> int:
    pid: int = (await pool.worker_stats())["local-0"]["pid"]
    return pid


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def test_a_retired_worker_finishes_its_sessions_then_stops(
    pool: LocalPool, site: Site
) -> None:
    old = await pid_of(pool)
    first, _, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    # A navigation in flight on the old worker while it retires: it must finish there.
    held, _, _ = await pool.create(site.page(), PATIENT.allowing(site.url), SHOT)
    loading = asyncio.create_task(pool.step(held, Goto(url=site.page("hang/retire")), SHOT))
    stats = pool.stats()
    assert stats.retired == 1 and stats.restarts == 0
    assert stats.by_worker["local-0"].healthy  # a planned replacement, not a fault

    # The next session waits for the new worker and lands there; the old one lives on.
    newer, worker, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    new = await pid_of(pool)
    assert worker == "local-0" and new != old and not gone(old)
    assert pool.stats().sessions == 3
    obs = await pool.step(first, Click(x=5, y=5), SHOT)
    assert obs.last_error is None  # an old session still works, on the old worker
    site.release("retire")
    loaded = await loading
    assert loaded.last_error is None and loaded.title == "Counter"

    await pool.close(first)
    assert not gone(old)  # one of its sessions is still open
    await pool.close(held)
    await wait_until(lambda: gone(old), "the drained worker stops")
    assert pool.stats().sessions == 1 and pool.stats().by_worker["local-0"].state == "ready"
    await pool.close(newer)


async def test_a_retired_worker_that_dies_loses_only_its_own_sessions(
    pool: LocalPool, site: Site
) -> None:
    old = await pid_of(pool)
    old_session = [
        (await pool.create(site.page(), FAST.allowing(site.url), SHOT))[0] for _ in range(2)
    ]
    fresh, _, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    new = await pid_of(pool)
    os.kill(old, signal.SIGKILL)
    with pytest.raises(SessionLost):
        await pool.step(old_session[0], Click(x=5, y=5), SHOT)
    assert (await pool.step(fresh, Click(x=5, y=5), SHOT)).last_error is None
    stats = pool.stats()
    assert stats.restarts == 0 and stats.workers_alive == 1 and await pid_of(pool) == new
    for session_id in [*old_session, fresh]:
        await pool.close(session_id)  # a lost one closes quietly
    assert pool.stats().sessions == 0


async def test_closing_the_pool_stops_a_draining_worker(site: Site) -> None:
    config = LocalPoolConfig(workers=1, worker=WorkerConfig(warm_contexts=0), max_worker_sessions=1)
    pool = LocalPool(config)
    await pool.start()
    old = await pid_of(pool)
    await pool.create(
        site.page(), FAST.allowing(site.url), SHOT
    )  # retires the worker; its session stays open
    await wait_until(lambda: pool.stats().workers_alive == 1, "the new worker is up")
    new = await pid_of(pool)
    await pool.aclose()
    assert gone(old) and gone(new)


async def test_the_first_workers_of_two_slots_retire_apart(site: Site) -> None:
    """Two slots, workers retired after 2 sessions: the second slot's first worker retires
    after its share (1), the first slot's after 2, so they never retire together; a worker
    that replaced a retired one gets the whole limit."""
    config = LocalPoolConfig(workers=2, worker=WorkerConfig(warm_contexts=0), max_worker_sessions=2)
    pool = LocalPool(config)
    await pool.start()
    try:
        first = await pool.worker_stats()
        a, slot_a, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        b, slot_b, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        assert (slot_a, slot_b) == ("local-0", "local-1")  # the fewest sessions, in order
        assert pool.stats().retired == 1  # local-1 after its 1; local-0 has served 1 of 2
        await wait_until(lambda: pool.stats().workers_alive == 2, "local-1's new worker is up")
        now = await pool.worker_stats()
        assert now["local-0"]["pid"] == first["local-0"]["pid"]
        assert now["local-1"]["pid"] != first["local-1"]["pid"]

        # A slot's load is its current worker's: local-1's new worker, empty, takes the next.
        c, slot_c, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        assert slot_c == "local-1"  # the new worker's 1st of the whole limit, not of a share
        assert pool.stats().retired == 1
        d, slot_d, _ = await pool.create(
            site.page(), FAST.allowing(site.url), SHOT
        )  # a tie: local-0, its 2nd
        assert slot_d == "local-0" and pool.stats().retired == 2
        for session_id in (a, b, c, d):
            await pool.close(session_id)
    finally:
        await pool.aclose()
