"""Hung sessions never delay other sessions on the same worker: four sessions whose
navigations hang (the server never answers) fill the worker's create lane, yet a fifth
session's goto finishes within its own deadline. No timing guesses: the bound is the goto's
own navigation deadline plus one second, which is the requirement."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from _pool_fixtures import PATIENT, Site, serve_site, wait_until

from webdojo.actions import Goto
from webdojo.browser.options import SessionOptions
from webdojo.errors import Overloaded
from webdojo.observation import ObservationOptions
from webdojo.server.worker.core import Worker, WorkerConfig
from webdojo.server.worker.queues import Lane, Op

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

NO_SHOT = ObservationOptions(screenshot=False)
QUICK = SessionOptions(action_timeout_s=3.0, navigation_timeout_s=3.0, popup_wait_s=0.5)


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


async def test_hung_navigations_do_not_hold_up_another_session(site: Site) -> None:
    async with Worker(WorkerConfig(warm_contexts=0)) as worker:
        limit = worker.config.create_limit
        hung_ids = [
            (await worker.create(site.page(), PATIENT.allowing(site.url), NO_SHOT))[0]
            for _ in range(limit)
        ]
        other, _ = await worker.create(site.page(), QUICK.allowing(site.url), NO_SHOT)
        hanging = [
            asyncio.create_task(worker.step(sid, Goto(url=site.page(f"hang/h{i}")), NO_SHOT))
            for i, sid in enumerate(hung_ids)
        ]
        await wait_until(lambda: worker.stats()["running"]["create"] == limit, "all hang")
        await wait_until(lambda: worker.stats()["overtime"]["create"] == limit, "slots lent")
        start = time.monotonic()
        obs = await worker.step(other, Goto(url=site.page("two")), NO_SHOT)
        elapsed = time.monotonic() - start
        assert obs.last_error is None and obs.title == "Page two"
        assert elapsed < QUICK.navigation_timeout_s + 1, f"the goto took {elapsed:.2f} s"
        assert not any(t.done() for t in hanging)  # they were still hanging all along
        for i in range(limit):
            site.release(f"h{i}")
        await asyncio.gather(*hanging)
        for sid in [*hung_ids, other]:
            await worker.close(sid)


async def test_a_lane_lends_the_slot_of_an_operation_past_lend_after() -> None:
    lane = Lane("create", 1)
    release = asyncio.Event()

    async def hang() -> None:
        async with lane.slot(Op.CREATE, timeout_s=60, lend_after_s=0.05):
            await release.wait()

    holder = asyncio.create_task(hang())
    await wait_until(lambda: lane.running[Op.CREATE] == 1, "the holder runs")
    async with lane.slot(Op.CREATE, timeout_s=60, lend_after_s=0.05):
        assert lane.overtime[Op.CREATE] == 1 and lane.running[Op.CREATE] == 2
    release.set()
    await holder
    assert lane.overtime[Op.CREATE] == 0 and lane.running[Op.CREATE] == 0
    # Every slot is back: the limit holds again for operations that finish in time.
    async with lane.slot(Op.CREATE, timeout_s=60):
        with pytest.raises(Overloaded):
            async with lane.slot(Op.CREATE, timeout_s=0.01):
                pass
