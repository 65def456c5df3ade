"""LocalPool with two real worker processes: placement, a killed worker, a killed Chromium."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable

import psutil
import pytest
from _pool_fixtures import FAST, Site, wait_until

from webdojo.actions import Click, Goto
from webdojo.browser.options import SessionOptions
from webdojo.errors import NavigationTimeout, SessionLost, UnknownSession
from webdojo.observation import ObservationOptions
from webdojo.server.pool.local import LocalPool, LocalPoolConfig
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

SHOT = ObservationOptions()


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[LocalPool]:
    config = LocalPoolConfig(
        workers=2,
        worker=WorkerConfig(warm_contexts=1, warm_options=FAST),
        heartbeat_timeout_s=10.0,  # for the hung-worker test; far above a healthy answer
    )
    local = LocalPool(config)
    await local.start()
    yield local
    pids = [s["pid"] for s in (await local.worker_stats()).values()]
    await local.aclose()
    assert not any(psutil.pid_exists(pid) for pid in pids)  # stopped and reaped, no zombies


async def open_sessions(pool: LocalPool, site: Site, n: int) -> dict[str, list[str]]:
    by_worker: dict[str, list[str]] = {}
    for _ in range(n):
        session_id, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        assert obs.title == "Counter"
        by_worker.setdefault(worker, []).append(session_id)
    return by_worker


async def test_killed_worker_loses_its_sessions_only_and_is_restarted(
    pool: LocalPool, site: Site
) -> None:
    by_worker = await open_sessions(pool, site, 4)
    assert sorted(len(v) for v in by_worker.values()) == [2, 2]  # fewest-sessions placement
    assert pool.stats().sessions_by_worker == {"local-0": 2, "local-1": 2}
    doomed, spared = by_worker["local-0"], by_worker["local-1"]
    restarts = pool.stats().restarts

    # A step in flight on the doomed worker (its navigation hangs until released).
    in_flight = asyncio.create_task(
        pool.step(doomed[0], Goto(url=site.page("hang/kill-worker")), SHOT)
    )
    await wait_until(_running_create(pool, "local-0"), "the navigation runs on its worker")
    os.kill((await pool.worker_stats())["local-0"]["pid"], signal.SIGKILL)
    with pytest.raises(SessionLost) as lost:
        await in_flight
    assert lost.value.retryable and lost.value.code == "session_lost"
    with pytest.raises(SessionLost):
        await pool.observe(doomed[1], SHOT)
    for session_id in spared:  # the other worker does not notice
        obs = await pool.step(session_id, Click(x=5, y=5), SHOT)
        assert obs.last_error is None

    await wait_until(lambda: pool.stats().workers_alive == 2, "the worker is restarted")
    stats = pool.stats()
    assert stats.restarts == restarts + 1 and stats.sessions == 2
    session_id, worker, _ = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    assert worker == "local-0"  # capacity is back, and it is the emptiest worker
    for old in doomed:
        await pool.close(old)  # a lost session closes quietly
    with pytest.raises(UnknownSession):
        await pool.close(doomed[0])
    for other in [*spared, session_id]:
        await pool.close(other)
    site.release("kill-worker")
    assert pool.stats().sessions == 0


def _running_create(pool: LocalPool, name: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return (await pool.worker_stats())[name]["running"]["create"] == 1

    return check


async def test_killed_chromium_gives_a_typed_error_and_the_worker_recovers(
    pool: LocalPool, site: Site
) -> None:
    by_worker = await open_sessions(pool, site, 2)
    victim = by_worker["local-1"][0]
    await wait_until(
        _has_browser_pid(pool, "local-1"), "the worker reports its browser's pid", timeout_s=90
    )
    stats = await pool.worker_stats()
    os.kill(stats["local-1"]["browser_pids"][0], signal.SIGKILL)
    with pytest.raises(SessionLost) as lost:
        await pool.step(victim, Click(x=5, y=5), SHOT)
    assert lost.value.retryable
    await pool.close(victim)
    assert pool.stats().workers_alive == 2  # the worker process itself lives on

    # New sessions on that worker work (it launched a new browser).
    session_id, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    assert worker == "local-1" and obs.title == "Counter"
    obs = await pool.step(session_id, Click(x=5, y=5), SHOT)
    assert obs.last_error is None
    assert (await pool.worker_stats())["local-1"]["browser_restarts"] == 1
    for other in [session_id, *by_worker["local-0"]]:
        await pool.close(other)


def _has_browser_pid(pool: LocalPool, name: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return bool((await pool.worker_stats()).get(name, {}).get("browser_pids"))

    return check


async def test_unknown_session_and_hung_start_page(pool: LocalPool, site: Site) -> None:
    with pytest.raises(UnknownSession):
        await pool.step("nope", Click(x=1, y=1), SHOT)
    hurried = SessionOptions(navigation_timeout_s=1.0, action_timeout_s=10.0)
    with pytest.raises(NavigationTimeout):  # rebuilt from its code on this side of the socket
        await pool.create(site.page("slow"), hurried.allowing(site.url), SHOT)
    assert pool.stats().sessions == 0


async def test_hung_worker_is_killed_and_replaced(pool: LocalPool, site: Site) -> None:
    """A worker whose event loop stops answering (SIGSTOP) misses its heartbeat: the pool
    kills it, its sessions raise SessionLost instead of hanging, and a new worker starts."""
    by_worker = await open_sessions(pool, site, 2)
    restarts = pool.stats().restarts
    os.kill((await pool.worker_stats())["local-1"]["pid"], signal.SIGSTOP)
    with pytest.raises(SessionLost):
        await pool.observe(by_worker["local-1"][0], SHOT)
    await wait_until(lambda: pool.stats().restarts == restarts + 1, "a new worker is started")
    await wait_until(lambda: pool.stats().workers_alive == 2, "both workers are alive")
    _, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
    assert worker == "local-1" and obs.title == "Counter"
