"""``HttpEnv`` against a real server: the EnvClient contract, retries, typed errors."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from webdojo.actions import Click, Scroll
from webdojo.asgi import ThreadServer
from webdojo.errors import Overloaded, ServerUnavailable, UnknownTask
from webdojo.observation import ObservationOptions
from webdojo.policies import make_policy
from webdojo.rollout.http_env import HttpEnv
from webdojo.rollout.run import RunConfig, plan_episodes, run_episodes
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task, UrlCheck

pytestmark = pytest.mark.browser
OPTIONS = ObservationOptions(elements=True)


class DroppingProxy:
    """A TCP proxy to the server that swallows the response to the next ``drop`` step
    requests and closes the client's connection instead: what a client sees when a response
    is lost on the way back (the server did act)."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.drop = 0
        self.dropped = 0
        self._server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> DroppingProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        state = {"drop": False}

        async def client_to_server() -> None:
            while data := await reader.read(65536):
                if b"/step " in data and self.drop > 0:
                    self.drop -= 1
                    state["drop"] = True
                up_writer.write(data)
                await up_writer.drain()

        async def server_to_client() -> None:
            while data := await up_reader.read(65536):
                if state["drop"]:
                    self.dropped += 1
                    return  # the server answered; the client never hears it
                writer.write(data)
                await writer.drain()

        pumps = [
            asyncio.ensure_future(client_to_server()),
            asyncio.ensure_future(server_to_client()),
        ]
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        for w in (writer, up_writer):
            w.close()
            with contextlib.suppress(Exception):
                await w.wait_closed()

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@pytest.fixture
async def env(app_server: ThreadServer) -> AsyncIterator[HttpEnv]:
    async with HttpEnv(app_server.url) as client:
        yield client


def _task(tasks: TaskSet, task_id: str) -> Task:
    return next(t for t in tasks.tasks if t.id == task_id)


async def test_a_lost_step_response_is_retried_without_acting_twice(
    app_server: ThreadServer, test_site: str
) -> None:
    proxy = await DroppingProxy(app_server.url).start()
    env = HttpEnv(proxy.url, backoff_s=0.01)
    try:
        session, obs = await env.open_url(f"{test_site}/counter.html", OPTIONS)
        button = next(e.id for e in obs.elements or [] if e.html_id == "inc")
        proxy.drop = 1
        after = await session.step(Click(element=button), OPTIONS)
        assert proxy.dropped == 1  # the first response was lost, the retry got the replay
        assert after.last_error is None
        final = await session.final_state(None)
        assert final.storage["count"] == 1  # one click, not two
        await session.step(Click(element=button), OPTIONS)
        assert (await session.final_state(None)).storage["count"] == 2
        await session.aclose()
    finally:
        await env.aclose()
        await proxy.aclose()


async def test_run_episodes_through_http_env(
    env: HttpEnv, builtin_tasks: TaskSet, tmp_path: Path
) -> None:
    tasks = TaskSet(
        tasks=[_task(builtin_tasks, "shop.add-runner"), _task(builtin_tasks, "wiki.skarn-height")]
    )
    specs = plan_episodes(tasks, RunConfig())
    with RunStore(tmp_path) as store:
        records = await run_episodes(env, specs, make_policy("scripted"), store, concurrency=2)
    assert sorted((r.task_id, r.success) for r in records) == [
        ("shop.add-runner", True),
        ("wiki.skarn-height", True),
    ]


async def test_json_transport_works_too(app_server: ThreadServer, builtin_tasks: TaskSet) -> None:
    async with HttpEnv(app_server.url, transport="json") as env:
        session, obs = await env.open(_task(builtin_tasks, "shop.add-runner"), OPTIONS)
        assert obs.screenshot is not None and obs.screenshot[:2] == b"\xff\xd8"
        after = await session.step(Scroll(direction="down"), OPTIONS)
        assert after.url == obs.url
        await session.aclose()
        await session.aclose()  # idempotent on the client side


async def test_msgpack_screenshots_arrive_as_bytes(env: HttpEnv, test_site: str) -> None:
    """HttpEnv's default transport (msgpack): screenshots come back as the image's bytes."""
    jpeg = ObservationOptions(jpeg_quality=80)
    session, obs = await env.open_url(f"{test_site}/plain.html", jpeg)
    after = await session.step(Scroll(direction="down"), jpeg)
    for shot in (obs.screenshot, after.screenshot):
        assert isinstance(shot, bytes) and shot[:2] == b"\xff\xd8"
    await session.aclose()


async def test_errors_come_back_typed(env: HttpEnv, builtin_tasks: TaskSet) -> None:
    bogus = _task(builtin_tasks, "shop.add-runner").model_copy(update={"id": "no.such-task"})
    with pytest.raises(UnknownTask):
        await env.open(bogus, OPTIONS)


async def test_overload_waits_for_room_then_gives_up(
    app_server: ThreadServer, env: HttpEnv, test_site: str
) -> None:
    held = [(await env.open_url(f"{test_site}/plain.html", OPTIONS))[0] for _ in range(3)]
    impatient = HttpEnv(app_server.url, overload_wait_s=0)
    try:
        with pytest.raises(Overloaded):
            await impatient.open_url(f"{test_site}/plain.html", OPTIONS)

        async def free_one() -> None:
            await asyncio.sleep(0.5)
            await held.pop().aclose()

        freeing = asyncio.ensure_future(free_one())
        waited, _ = await env.open_url(f"{test_site}/plain.html", OPTIONS)  # waits for room
        await freeing
        held.append(waited)
    finally:
        await impatient.aclose()
        for session in held:
            await session.aclose()


async def test_unreachable_server_is_an_infra_fault(builtin_tasks: TaskSet) -> None:
    async with HttpEnv("http://127.0.0.1:9", retries=1, backoff_s=0.01) as env:
        with pytest.raises(ServerUnavailable) as caught:
            await env.open(_task(builtin_tasks, "shop.add-runner"), OPTIONS)
    assert caught.value.fault.value == "infra" and caught.value.retryable


async def test_the_server_verifies_once_and_the_client_keeps_its_verdict(
    env: HttpEnv, builtin_tasks: TaskSet, tmp_path: Path
) -> None:
    """The final state is on the server, so the server verifies; the client records that
    verdict and the state it read, and does not verify again with its own copy of the task."""
    task = _task(builtin_tasks, "shop.add-runner")
    # the client's copy of the task would fail every episode if the client verified
    never = task.verifier.model_copy(
        update={"checks": [UrlCheck(kind="url", op="contains", value="no-such-page")]}
    )
    local_copy = task.model_copy(update={"verifier": never})
    specs = plan_episodes(TaskSet(tasks=[local_copy]), RunConfig())
    with RunStore(tmp_path) as store:
        (record,) = await run_episodes(env, specs, make_policy("scripted"), store, concurrency=1)
    assert record.success is True and record.verifier is not None
    assert record.final_state is not None and "shop.cart" in record.final_state.storage
