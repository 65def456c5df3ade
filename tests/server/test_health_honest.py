"""``/v1/health`` tells the truth after a browser is killed: not "ok" while the browser is
dead or relaunching, "ok" again once it is back; and the killed browser's sessions say that
their browser died (not their worker). A real server (the app under uvicorn in a thread, one
in-process worker) and a real SIGKILL of its Chromium. No sleeps as assertions: health is
polled until it changes, and the process until it is gone (then the very next health request
must not say "ok": Playwright's disconnect event may still be on its way)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

import httpx
import psutil
import pytest
from _pool_fixtures import wait_until

from webdojo.asgi import ThreadServer
from webdojo.browser.options import SessionOptions
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.pool.base import PoolStats, WorkerStatus
from webdojo.server.pool.inline import InlinePool
from webdojo.server.pool.local import LocalPool
from webdojo.server.worker.config import WorkerConfig
from webdojo.tasks.loader import TaskSet

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.fixture
def served(builtin_tasks: TaskSet, test_site: str) -> Iterator[tuple[ThreadServer, InlinePool]]:
    pool = InlinePool()
    settings = ServerSettings(session=SessionOptions().allowing(test_site))
    server = ThreadServer(create_app(pool, builtin_tasks, settings)).start()
    yield server, pool
    server.stop()


def browser_pid(pool: InlinePool) -> int:
    pids: list[int] = pool._worker.stats()["browser_pids"]
    assert len(pids) == 1
    return pids[0]


async def test_health_reports_a_killed_browser_until_it_is_back(
    served: tuple[ThreadServer, InlinePool], test_site: str
) -> None:
    server, pool = served
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:

        async def health() -> tuple[int, dict[str, Any]]:
            answer = await client.get("/v1/health")
            return answer.status_code, answer.json()

        code, body = await health()
        assert code == 200 and body["status"] == "ok" and body["browsers_alive"] == 1
        assert body["by_worker"] == [
            {"worker": "inline", "state": "ready", "browser": "alive", "sessions": 0}
        ]
        created = await client.post("/v1/sessions", json={"start_url": f"{test_site}/plain.html"})
        sid = created.json()["session_id"]
        killed = browser_pid(pool)
        os.kill(killed, signal.SIGKILL)

        seen: list[tuple[int, dict[str, Any]]] = []

        async def not_ok() -> bool:
            seen.append(await health())
            return seen[-1][1]["status"] != "ok"

        await wait_until(not_ok, "health reports the dead browser")
        code, body = seen[-1]
        # One worker whose browser is dead or relaunching: none can take a session.
        assert body["status"] == "down" and code == 503 and body["browsers_alive"] == 0
        assert body["by_worker"][0]["browser"] in ("dead", "relaunching")

        step = {"step_index": 0, "action": {"type": "scroll", "direction": "down"}}
        for lost in [
            await client.post(f"/v1/sessions/{sid}/step", json=step),
            await client.post(f"/v1/sessions/{sid}/observe"),  # remembered as lost
        ]:
            error = lost.json()["error"]
            assert lost.status_code == 503 and error["code"] == "session_lost"
            assert "browser" in error["message"] and "worker" not in error["message"]
            assert error["details"] == {"cause": "browser_closed"}
        assert (await client.delete(f"/v1/sessions/{sid}")).status_code == 204

        async def ok() -> bool:
            return (await health())[1]["status"] == "ok"

        await wait_until(ok, "health is ok again after the relaunch")
        assert browser_pid(pool) != killed
        fresh = await client.post("/v1/sessions", json={"start_url": f"{test_site}/plain.html"})
        assert fresh.status_code == 201
        await client.delete(f"/v1/sessions/{fresh.json()['session_id']}")


def process_gone(pid: int) -> bool:
    """Chromium's process has died: reaped, or a zombie its driver has not reaped yet."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def assert_not_alive(pool: InlinePool, killed: int, state: str) -> None:
    """``state`` does not call the killed browser alive: "dead", "relaunching", or "alive"
    for a new browser that the watchdog has launched already."""
    if state != "alive":
        assert state in ("dead", "relaunching"), state
        return
    active = pool._worker.stats()["browser_pids"][-1]  # retired browsers come first
    assert active != killed, "the killed browser is called alive"


@contextlib.contextmanager
def frozen_driver(browser: int) -> Iterator[None]:
    """SIGSTOP the Playwright driver of ``browser`` (its parent): a browser killed meanwhile
    stays a zombie and no disconnect event comes, until the driver is thawed."""
    driver = psutil.Process(browser).parent()
    assert driver is not None and "node" in driver.name(), driver
    driver.suspend()
    try:
        yield
    finally:
        driver.resume()


async def test_health_is_not_ok_once_the_browser_process_is_gone(
    served: tuple[ThreadServer, InlinePool],
) -> None:
    """Playwright reports the disconnection up to half a second after the process died;
    health does not wait for it: the first health request after the death is not "ok"."""
    server, pool = served
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        assert (await client.get("/v1/health")).json()["status"] == "ok"
        killed = browser_pid(pool)
        os.kill(killed, signal.SIGKILL)
        await wait_until(lambda: process_gone(killed), "the browser's process is gone")
        answer = await client.get("/v1/health")
        assert answer.status_code == 503 and answer.json()["status"] == "down", answer.json()
        assert answer.json()["by_worker"][0]["browser"] in ("dead", "relaunching")

        async def ok() -> bool:
            return (await client.get("/v1/health")).json()["status"] == "ok"

        await wait_until(ok, "health is ok again after the relaunch")


async def test_health_does_not_wait_for_the_disconnect_event(
    served: tuple[ThreadServer, InlinePool],
) -> None:
    """The same, deterministically: with its driver stopped, the killed browser is a zombie
    and Playwright never says it disconnected; health still says it is dead. (The watchdog
    reads the process too, so it may already be relaunching: never "ok" for the killed one.)"""
    server, pool = served
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        killed = browser_pid(pool)
        with frozen_driver(killed):
            os.kill(killed, signal.SIGKILL)
            await wait_until(lambda: process_gone(killed), "the browser is a zombie")
            assert_not_alive(pool, killed, pool.worker.stats()["browser_state"])
            answer = (await client.get("/v1/health")).json()
            assert_not_alive(pool, killed, answer["by_worker"][0]["browser"])
            assert answer["status"] == (
                "ok" if answer["by_worker"][0]["browser"] == "alive" else "down"
            )

        async def ok() -> bool:
            return (await client.get("/v1/health")).json()["status"] == "ok"

        await wait_until(ok, "health is ok again after the relaunch")
        assert browser_pid(pool) != killed


@pytest.mark.slow
async def test_a_worker_process_browser_is_dead_before_its_next_heartbeat() -> None:
    """A worker process reports its browser once a heartbeat; between two, the pool checks
    the browser's process itself, so health sees a death at once. The worker's driver is
    stopped: neither Playwright nor the heartbeat can tell the pool."""
    pool = LocalPool(workers=1, worker=WorkerConfig(warm_contexts=0))
    async with pool:

        def browser() -> str:
            return pool.stats().by_worker["local-0"].browser

        await wait_until(lambda: browser() == "alive", "a heartbeat reports the browser")
        killed, _ = pool._slots[0].last_stats["browser_process"]
        with frozen_driver(killed):
            os.kill(killed, signal.SIGKILL)
            await wait_until(lambda: process_gone(killed), "the browser is a zombie")
            assert browser() == "dead"
        await wait_until(lambda: browser() == "alive", "the worker relaunched its browser")


class _StubPool(InlinePool):
    """A pool that only reports stats (health reads nothing else)."""

    def __init__(self, stats: PoolStats) -> None:
        self._stats = stats

    def stats(self) -> PoolStats:
        return self._stats


@pytest.mark.parametrize(
    ("states", "status", "code"),
    [
        ([("ready", "alive"), ("ready", "alive")], "ok", 200),
        ([("ready", "alive"), ("ready", "relaunching")], "degraded", 200),
        ([("ready", "alive"), ("ready", "recycling")], "ok", 200),  # planned: creates wait
        ([("ready", "alive"), ("dead", "none")], "degraded", 200),
        ([("dead", "none"), ("ready", "dead")], "down", 503),
    ],
)
async def test_health_status_from_worker_states(
    builtin_tasks: TaskSet, states: list[tuple[str, str]], status: str, code: int
) -> None:
    workers = {
        f"w{i}": WorkerStatus(state, browser, 0) for i, (state, browser) in enumerate(states)
    }
    alive = sum(w.state == "ready" for w in workers.values())
    pool = _StubPool(
        PoolStats(workers=2, workers_alive=alive, sessions=0, restarts=0, by_worker=workers)
    )
    app = create_app(pool, builtin_tasks, ServerSettings(manage_pool=False))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.get("/v1/health")
    assert answer.status_code == code and answer.json()["status"] == status
    assert [w["browser"] for w in answer.json()["by_worker"]] == [b for _, b in states]
