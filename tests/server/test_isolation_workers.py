"""Isolation through the worker pools: sessions on one worker (warm contexts included) and on
two worker processes never see each other's canaries (see ``isolation_site``); the planting
session itself sees them all (the positive control)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psutil
import pytest
from _pool_fixtures import FAST, wait_until

from isolation_site import ALL_CANARIES, DOWNLOAD_BYTES, IsolationSite, serve_isolation_site
from webdojo.actions import Goto
from webdojo.browser.downloads import ROOT_PREFIX
from webdojo.observation import DownloadInfo, ObservationOptions
from webdojo.server.pool.base import Pool
from webdojo.server.pool.inline import InlinePool
from webdojo.server.pool.local import LocalPool, LocalPoolConfig
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

BARE = ObservationOptions(screenshot=False)


@pytest.fixture(scope="module")
def site() -> Iterator[IsolationSite]:
    with serve_isolation_site() as s:
        yield s


@pytest.fixture(scope="module")
async def inline_pool() -> AsyncIterator[InlinePool]:
    pool = InlinePool(WorkerConfig(warm_contexts=2, warm_options=FAST))
    async with pool:
        yield pool


@pytest.fixture(scope="module")
async def two_workers() -> AsyncIterator[LocalPool]:
    pool = LocalPool(LocalPoolConfig(workers=2, worker=WorkerConfig(warm_contexts=1)))
    await pool.start()
    yield pool
    pids = [stats["pid"] for stats in (await pool.worker_stats()).values()]
    tmps = {pid: worker_tmp(pid) for pid in pids}
    # A worker that served a session has a download root (a worker started in place of a
    # killed one may have none yet); closed workers leave none.
    assert any(roots_of(pid, tmps[pid]) for pid in pids) or pool.stats().restarts
    await pool.aclose()
    assert not any(roots_of(pid, tmps[pid]) for pid in pids)


def worker_tmp(pid: int) -> Path:
    """A worker's own TMPDIR (each worker process has one: server/worker/scratch.py)."""
    return Path(psutil.Process(pid).environ().get("TMPDIR", tempfile.gettempdir()))


def roots_of(pid: int, tmp: Path) -> list[Path]:
    return list(tmp.glob(f"{ROOT_PREFIX}{pid}-*"))


async def plant(pool: Pool, site: IsolationSite, token: str) -> tuple[str, str]:
    """A session that planted ``token``'s canaries and whose download was reported."""
    session_id, worker, obs = await pool.create(
        site.plant_url(token), FAST.allowing(site.url), BARE
    )
    await site.wait_planted(token)
    got = list(obs.downloads)
    async with asyncio.timeout(20):  # the server saw /planted: the browser is committing it
        while not (got and obs.url.endswith(f"/planted/{token}")):
            obs = await pool.observe(session_id, BARE)
            got += obs.downloads
            await asyncio.sleep(0.02)
    assert [(d.name, d.error) for d in got] == [(f"canary-{token}.bin", None)]
    return session_id, worker


async def probe(pool: Pool, session_id: str, site: IsolationSite, token: str) -> set[str]:
    url, probe_id = site.probe_url(token)
    await pool.step(session_id, Goto(url=url), BARE)
    return await site.seen(probe_id, token)


async def downloads(pool: Pool, session_id: str, wait: bool) -> list[DownloadInfo]:
    """What observations report; with ``wait``, until there is something."""
    seen: list[DownloadInfo] = []
    async with asyncio.timeout(20):
        while True:
            seen += (await pool.observe(session_id, BARE)).downloads
            if seen or not wait:
                return seen
            await asyncio.sleep(0.05)


async def test_sessions_on_one_worker_are_isolated(
    inline_pool: InlinePool, site: IsolationSite
) -> None:
    pool = inline_pool
    a, _ = await plant(pool, site, "w1")
    b = (await pool.create(site.url + "/blank", FAST.allowing(site.url), BARE))[0]
    assert await probe(pool, b, site, "w1") == set()
    assert site.hits["w1"] == 2
    assert await downloads(pool, b, wait=False) == []
    assert await probe(pool, a, site, "w1") == ALL_CANARIES
    assert site.hits["w1"] == 2
    await pool.close(a)
    c = (await pool.create(site.url + "/blank", FAST.allowing(site.url), BARE))[0]  # after a closed
    assert await probe(pool, c, site, "w1") == set()
    assert site.hits["w1"] == 3
    for session_id in (b, c):
        await pool.close(session_id)
    assert pool.worker.stats()["warm_hits"] >= 1  # warm contexts were among them


async def test_a_warm_session_takes_its_episodes_download_caps(
    inline_pool: InlinePool, site: IsolationSite
) -> None:
    pool = inline_pool
    await wait_for_warm(pool)
    hits = pool.worker.stats()["warm_hits"]
    no_downloads = dataclasses.replace(FAST, max_downloads=0)  # same context: warm is fine
    session_id, _, obs = await pool.create(
        site.plant_url("w3"), no_downloads.allowing(site.url), BARE
    )
    assert pool.worker.stats()["warm_hits"] == hits + 1
    await site.wait_planted("w3")
    [got] = obs.downloads or await downloads(pool, session_id, wait=True)
    assert got.error is not None and got.error.code == "too_many_downloads"
    await pool.close(session_id)


async def wait_for_warm(pool: InlinePool) -> None:
    """Until the warm pool is full. One ready page is not enough: after the test before, it
    may be the one loaded ahead at that test's start URL, which no other URL may take; a
    full pool keeps a blank page (``preload.py``). On the loaded CI machine the create ran
    before the refill had readied the blank one."""
    full = pool.worker.config.warm_contexts
    async with asyncio.timeout(30):
        while pool.worker.stats().get("warm_ready", 0) < full:
            await asyncio.sleep(0.05)


async def test_sessions_on_two_workers_are_isolated(
    two_workers: LocalPool, site: IsolationSite
) -> None:
    pool = two_workers
    a, worker_a = await plant(pool, site, "w2")
    b, worker_b, _ = await pool.create(site.url + "/blank", FAST.allowing(site.url), BARE)
    assert {worker_a, worker_b} == {"local-0", "local-1"}
    assert await probe(pool, b, site, "w2") == set()
    assert site.hits["w2"] == 2
    assert await downloads(pool, b, wait=False) == []
    assert await probe(pool, a, site, "w2") == ALL_CANARIES
    assert site.hits["w2"] == 2
    await pool.close(a)
    await pool.close(b)


async def test_a_killed_workers_download_dir_goes_with_its_temp_dir(
    two_workers: LocalPool, site: IsolationSite
) -> None:
    pool = two_workers
    a, worker = await plant(pool, site, "w4")
    pid = (await pool.worker_stats())[worker]["pid"]
    [root] = roots_of(pid, worker_tmp(pid))
    assert [p.stat().st_size for p in root.glob("s-*/*")] == [DOWNLOAD_BYTES]
    restarts = pool.stats().restarts
    os.kill(pid, signal.SIGKILL)  # no chance to clean up
    await wait_until(lambda: pool.stats().restarts == restarts + 1, "the worker is restarted")
    await wait_until(lambda: not root.exists(), "the dead worker's dir removed")
    await pool.close(a)  # lost with its worker: closes quietly
