"""The Worker on real Chromium: operations, warm pool, per-operation queues vs FIFO, recycling,
hung navigations and a killed browser. No timing assertions: queue behaviour is checked with
navigations that hang until the test releases them."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import psutil
import pytest
from _pool_fixtures import FAST, PATIENT, Site, wait_until

from webdojo.actions import Click, Goto
from webdojo.browser.options import SessionOptions
from webdojo.errors import BrowserClosed, NavigationTimeout, UnknownSession
from webdojo.observation import ObservationOptions
from webdojo.server.worker.browsers import Browsers, ManagedBrowser
from webdojo.server.worker.core import QueueMode, Worker, WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SHOT = ObservationOptions()
ELEMENTS = ObservationOptions(elements=True)


@pytest.fixture(scope="module")
async def worker() -> AsyncIterator[Worker]:
    """A worker with a warm pool, shared by the tests that do not need special limits."""
    async with Worker(WorkerConfig(warm_contexts=1, warm_options=FAST)) as w:
        yield w


async def count_button(worker: Worker, session_id: str) -> int:
    obs = await worker.observe(session_id, ELEMENTS)
    assert obs.elements is not None
    return next(e.id for e in obs.elements if e.html_id == "count")


async def test_session_operations_and_warm_pool(worker: Worker, site: Site) -> None:
    await wait_until(lambda: worker.stats()["warm_ready"] == 1, "the warm pool is filled")
    hits = worker.stats()["warm_hits"]
    session_id, first = await worker.create(site.page(), FAST.allowing(site.url), ELEMENTS)
    assert first.title == "Counter" and first.screenshot and first.elements
    assert worker.stats()["warm_hits"] == hits + 1  # a warm context, not a cold one
    obs = await worker.step(session_id, Click(element=await count_button(worker, session_id)), SHOT)
    assert obs.last_error is None
    final = await worker.final_state(session_id, "done")
    assert final.answer == "done" and "1" in final.text and final.url == site.page()
    assert worker.stats()["sessions"] == 1
    await worker.close(session_id)
    assert worker.stats()["sessions"] == 0
    for call in (worker.observe(session_id, SHOT), worker.close(session_id)):
        with pytest.raises(UnknownSession):
            await call

    # Another viewport cannot use a warm context (the viewport is fixed per context).
    cold = worker.stats()["cold_creates"]
    small = SessionOptions(viewport_width=800, viewport_height=600, navigation_timeout_s=10)
    session_id, first = await worker.create(site.page(), small.allowing(site.url), SHOT)
    assert first.viewport_width == 800 and worker.stats()["cold_creates"] == cold + 1
    await worker.close(session_id)


async def test_hung_navigation_times_out_and_the_worker_keeps_serving(
    worker: Worker, site: Site
) -> None:
    hurried = SessionOptions(navigation_timeout_s=1.0, action_timeout_s=10.0)
    with pytest.raises(NavigationTimeout):
        await worker.create(site.page("slow"), hurried.allowing(site.url), SHOT)
    assert worker.stats()["sessions"] == 0  # nothing left behind
    session_id, _ = await worker.create(site.page(), hurried.allowing(site.url), SHOT)
    obs = await worker.step(session_id, Goto(url=site.page("slow")), SHOT)
    assert obs.last_error is not None and obs.last_error.code == "navigation_timeout"
    obs = await worker.step(session_id, Click(element=await count_button(worker, session_id)), SHOT)
    assert obs.last_error is None and obs.title == "Counter"
    await worker.close(session_id)


async def test_killed_browser_gives_browser_closed_then_recovers(
    worker: Worker, site: Site
) -> None:
    session_id, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
    pid = worker.stats()["browser_pids"][0]
    assert psutil.Process(pid).name().startswith("chrom")  # Chromium's main process
    await wait_until(lambda: worker.stats()["pss_mb"] > 0, "the browser's memory is measured")
    restarts = worker.stats()["browser_restarts"]
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(BrowserClosed):
        await worker.step(session_id, Click(x=5, y=5), SHOT)
    await worker.close(session_id)  # closing a session of a dead browser is fine
    session_id, obs = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
    assert obs.title == "Counter"
    assert worker.stats()["browser_restarts"] == restarts + 1
    await worker.close(session_id)


def _done_order(tasks: dict[str, asyncio.Task[Any]]) -> list[str]:
    """The names of ``tasks`` in the order they finish (filled in as they do)."""
    order: list[str] = []
    for name, task in tasks.items():
        task.add_done_callback(functools.partial(_note, order, name))
    return order


def _note(order: list[str], name: str, _: object) -> None:
    order.append(name)


async def test_per_op_queues_keep_steps_moving_while_creates_wait(site: Site) -> None:
    config = WorkerConfig(create_limit=1, warm_contexts=0, lend_after_s=None)  # strict FIFO
    async with Worker(config) as worker:
        session_id, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        button = await count_button(worker, session_id)
        tasks = {
            "hanging create": asyncio.create_task(
                worker.create(site.page("hang/per-op"), PATIENT.allowing(site.url), SHOT)
            ),
        }
        await wait_until(lambda: worker.stats()["running"]["create"] == 1, "the create runs")
        tasks["queued create"] = asyncio.create_task(
            worker.create(site.page(), FAST.allowing(site.url), SHOT)
        )
        await wait_until(lambda: worker.stats()["queue_depth"]["create"] == 1, "a create waits")
        order = _done_order(tasks)

        # The create slot is taken, yet steps and observations go through at once.
        obs = await worker.step(session_id, Click(element=button), SHOT)
        assert obs.last_error is None
        await worker.observe(session_id, SHOT)
        assert order == [] and worker.stats()["queue_depth"]["create"] == 1

        site.release("per-op")
        created = await asyncio.gather(*tasks.values())
        assert order == ["hanging create", "queued create"]  # FIFO within the create queue
        for other_id, _ in created:
            await worker.close(other_id)
        await worker.close(session_id)


async def test_fifo_mode_queues_everything_behind_one_limit(site: Site) -> None:
    config = WorkerConfig(
        queue_mode=QueueMode.FIFO, fifo_limit=1, warm_contexts=0, lend_after_s=None
    )
    async with Worker(config) as worker:
        session_id, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        tasks = {
            "hanging create": asyncio.create_task(
                worker.create(site.page("hang/fifo"), PATIENT.allowing(site.url), SHOT)
            ),
        }
        await wait_until(lambda: worker.stats()["running"]["create"] == 1, "the create runs")
        tasks["observe"] = asyncio.create_task(worker.observe(session_id, SHOT))
        tasks["step"] = asyncio.create_task(worker.step(session_id, Click(x=5, y=5), SHOT))
        await wait_until(
            lambda: worker.stats()["queue_depth"] == {"create": 0, "execute": 1, "observe": 1},
            "the observe and the step wait behind the create",
        )
        order = _done_order(tasks)
        site.release("fifo")
        results = await asyncio.gather(*tasks.values())
        assert order == ["hanging create", "observe", "step"]
        await worker.close(results[0][0])
        await worker.close(session_id)


async def test_browser_is_recycled_after_m_contexts_and_drains(site: Site) -> None:
    config = WorkerConfig(recycle_after_contexts=2, warm_contexts=0)
    async with Worker(config) as worker:
        first = [
            (await worker.create(site.page(), FAST.allowing(site.url), SHOT))[0] for _ in range(2)
        ]
        third, _ = await worker.create(site.page(), FAST.allowing(site.url), SHOT)
        stats = worker.stats()
        assert stats["browser_recycles"] == 1
        assert stats["browsers"] == 2 and stats["browsers_draining"] == 1
        # The retired browser still serves its sessions until they end.
        obs = await worker.step(first[0], Click(element=await count_button(worker, first[0])), SHOT)
        assert obs.last_error is None
        for session_id in first:
            await worker.close(session_id)
        stats = worker.stats()
        assert stats["browsers"] == 1 and stats["browsers_draining"] == 0
        obs = await worker.step(third, Click(element=await count_button(worker, third)), SHOT)
        assert obs.last_error is None
        await worker.close(third)


def test_memory_limit_recycles_only_on_a_fresh_measurement() -> None:
    """The decision alone (the measurement itself runs in the tests above: browser_pids)."""
    browsers = Browsers(WorkerConfig(max_browser_memory_mb=500))
    browser = ManagedBrowser(host=None)  # type: ignore[arg-type,unused-ignore]  # not consulted
    procs = browsers._procs
    procs.pss_mb, procs.measured_at = 900.0, browser.launched_at - 1  # before its launch
    assert not browsers._worn_out(browser)
    procs.measured_at = browser.launched_at + 1
    assert browsers._worn_out(browser)
    procs.pss_mb = 400.0
    assert not browsers._worn_out(browser)
    browser.contexts = WorkerConfig().recycle_after_contexts
    assert browsers._worn_out(browser)


async def test_aclose_waits_for_a_launch_in_flight_and_closes_its_browser() -> None:
    """A worker closing while a create relaunches its browser (the server died just after a
    browser kill: found by the soak) closes that browser too, instead of exiting with it
    alive (its profile and artifacts directories were left in TMPDIR)."""
    browsers = Browsers(WorkerConfig(warm_contexts=0))
    launching = asyncio.create_task(browsers._ensure_active())
    await asyncio.sleep(0)  # the launch now holds the lock
    await browsers.aclose()
    browser = await launching
    assert not browser.host.is_connected()
