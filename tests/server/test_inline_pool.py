"""``InlinePool`` (``webdojo serve --workers 0``) on real Chromium: the in-process Worker's
warm contexts and queues, and a killed browser turned into retryable ``session_lost``."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from _pool_fixtures import FAST, Site, serve_site, wait_until

from webdojo.actions import Click
from webdojo.errors import SessionLost, UnknownSession
from webdojo.observation import ObservationOptions
from webdojo.server.pool.inline import WORKER_ID, InlinePool
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOT = ObservationOptions()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


async def test_sessions_use_warm_contexts_and_a_dead_browser_loses_them(site: Site) -> None:
    async with InlinePool(WorkerConfig(warm_contexts=1, warm_options=FAST)) as pool:
        await wait_until(lambda: pool.worker.stats()["warm_ready"] == 1, "a warm context")
        session_id, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        assert worker == WORKER_ID and obs.title == "Counter"
        assert pool.worker.stats()["warm_hits"] == 1
        stats = pool.stats()
        assert stats.sessions == 1 and stats.workers_alive == 1
        assert set(stats.queue_depth) == {"create", "execute", "observe"}

        os.kill(pool.worker.stats()["browser_pids"][0], signal.SIGKILL)
        with pytest.raises(SessionLost) as lost:
            await pool.step(session_id, Click(x=5, y=5), SHOT)
        assert lost.value.retryable
        with pytest.raises(SessionLost):  # at once, without touching the browser again
            await pool.observe(session_id, SHOT)
        await pool.close(session_id)
        await pool.close(session_id)  # a double close is quiet
        with pytest.raises(UnknownSession):
            await pool.observe(session_id, SHOT)

        session_id, _, obs = await pool.create(
            site.page(), FAST.allowing(site.url), SHOT
        )  # a new browser
        obs = await pool.step(session_id, Click(x=5, y=5), SHOT)
        assert obs.last_error is None
        assert pool.stats().restarts == 1
        await pool.close(session_id)
