"""A renderer crash that hits a spare warm page (nobody's session yet): the next episode gets a
page that works, never the crashed one (the warm pool drops crashed pages when it hands out)."""

from __future__ import annotations

import contextlib

import pytest
from _pool_fixtures import FAST, Site, wait_until
from playwright.async_api import Error as PlaywrightError

from webdojo.browser.session import SessionState
from webdojo.observation import ObservationOptions
from webdojo.server.worker.core import Worker, WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


async def test_a_crashed_warm_page_is_not_handed_out(site: Site) -> None:
    config = WorkerConfig(warm_contexts=1, warm_options=FAST, warm_preload=False)
    async with Worker(config) as worker:
        await wait_until(lambda: worker.stats()["warm_ready"] == 1, "a warm page")
        [spare] = worker._browsers._active.warm  # type: ignore[union-attr]
        with contextlib.suppress(PlaywrightError):
            await spare.page.goto("chrome://crash", timeout=5000)
        await wait_until(lambda: spare.state is SessionState.CRASHED, "the warm page crashed")
        session_id, obs = await worker.create(
            site.page(), FAST.allowing(site.url), ObservationOptions()
        )
        assert obs.title == "Counter" and obs.last_error is None
        assert worker.stats()["warm_hits"] == 0
        await worker.close(session_id)
        # the pool refills with a working page
        await wait_until(lambda: worker.stats()["warm_ready"] == 1, "a new warm page")
        again, obs = await worker.create(site.page(), FAST.allowing(site.url), ObservationOptions())
        assert obs.title == "Counter" and worker.stats()["warm_hits"] == 1
        await worker.close(again)
