"""The warm pool's preloaded start pages: handed out only at exactly their URL, never shared
between episodes, replaced when episodes move to another URL, off with ``warm_preload``."""

from __future__ import annotations

import pytest
from _pool_fixtures import FAST, Site, wait_until

from webdojo.actions import Click
from webdojo.observation import ObservationOptions
from webdojo.server.worker.core import Worker, WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOT = ObservationOptions()
ELEMENTS = ObservationOptions(elements=True)


def _ready(worker: Worker, preloads: int) -> bool:
    stats = worker.stats()
    return stats["preloads"] == preloads and stats["warm_ready"] == 1


async def test_an_episode_at_the_preloaded_url_starts_on_a_fresh_loaded_page(site: Site) -> None:
    async with Worker(WorkerConfig(warm_contexts=1, warm_options=FAST)) as worker:
        once, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        await worker.close(once)  # one episode at /page: not yet loaded ahead
        first, obs = await worker.create(site.page(), FAST.allowing(site.url), ELEMENTS)
        button = next(e.id for e in obs.elements or [] if e.html_id == "count")
        await worker.step(first, Click(element=button), SHOT)
        await wait_until(lambda: _ready(worker, 1), "a warm page has loaded /page ahead")

        second, obs = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        assert worker.stats()["preloaded_hits"] == 1
        assert obs.url == site.page() and obs.title == "Counter" and obs.screenshot
        # its own context: the first episode's click is not on this page
        assert (await worker.final_state(second)).text.split()[0] == "0"
        assert "1" in (await worker.final_state(first)).text

        # a page preloaded at /page is not handed to an episode at /two ...
        await wait_until(lambda: _ready(worker, 2), "the pool has refilled")
        third, obs = await worker.create(site.page("two"), FAST.allowing(site.url), SHOT)
        assert obs.title == "Page two" and worker.stats()["preloaded_hits"] == 1
        # ... and once /two repeats, the pool loads it ahead
        await wait_until(lambda: worker.stats()["warm_ready"] == 1, "a blank warm page")
        fourth, _ = await worker.create(site.page("two"), FAST.allowing(site.url), SHOT)
        await wait_until(lambda: _ready(worker, 3), "a warm page has loaded /two ahead")
        fifth, obs = await worker.create(site.page("two"), FAST.allowing(site.url), SHOT)
        assert obs.title == "Page two" and worker.stats()["preloaded_hits"] == 2
        for session_id in (first, second, third, fourth, fifth):
            await worker.close(session_id)


async def test_without_preload_warm_pages_stay_blank(site: Site) -> None:
    config = WorkerConfig(warm_contexts=1, warm_options=FAST, warm_preload=False)
    async with Worker(config) as worker:
        for _ in range(2):
            session_id, obs = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
            assert obs.title == "Counter"
            await worker.close(session_id)
            await wait_until(lambda: worker.stats()["warm_ready"] == 1, "the pool has refilled")
        stats = worker.stats()
        assert stats["preloads"] == stats["preloaded_hits"] == 0 and stats["warm_hits"] >= 1


async def test_a_pool_of_two_keeps_a_blank_page_for_other_urls(site: Site) -> None:
    async with Worker(WorkerConfig(warm_contexts=2, warm_options=FAST)) as worker:
        # /page twice in a row, back to back: the refill after the first may still be filling
        # the pool with blank pages when the second asks for /page to be loaded ahead
        opened = [
            (await worker.create(site.page(), FAST.allowing(site.url), SHOT))[0] for _ in range(2)
        ]
        for session_id in opened:
            await worker.close(session_id)
        await wait_until(
            lambda: worker.stats()["preloads"] >= 1 and worker.stats()["warm_ready"] == 2,
            "one warm page at /page and one blank",
        )
        before = worker.stats()
        session_id, obs = await worker.create(site.page("two"), FAST.allowing(site.url), SHOT)
        after = worker.stats()
        assert obs.title == "Page two" and after["cold_creates"] == before["cold_creates"]
        assert after["warm_hits"] == before["warm_hits"] + 1
        assert after["preloaded_hits"] == before["preloaded_hits"]
        await worker.close(session_id)
