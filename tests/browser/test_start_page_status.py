"""A start page that answers an HTTP error (4xx/5xx) is the environment's fault, not the
agent's: ``StartPageFailed`` (start_page_failed, fault env) at session open, an episode
recorded as a fault with reward None, in this process and through a real server alike. The
warm pool does not keep such a page loaded ahead. An agent's own goto to an error page is
what the agent did: no error."""

from __future__ import annotations

import asyncio
import http.server
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from browser_helpers import TEST_OPTIONS

from webdojo.actions import Goto
from webdojo.asgi import ThreadServer
from webdojo.browser import BrowserHost, BrowserSession, NetworkPolicy, SessionOptions
from webdojo.errors import StartPageFailed
from webdojo.local_http import LoopbackHTTPServer
from webdojo.observation import ObservationOptions
from webdojo.policies import make_policy
from webdojo.rollout.env_client import EnvClient, InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.http_env import HttpEnv
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.server.worker.core import Worker, WorkerConfig
from webdojo.sites.server import SiteServer
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet, load_spec

pytestmark = pytest.mark.browser

SHOT = ObservationOptions()


class _Handler(http.server.BaseHTTPRequestHandler):
    """``/status/N`` (and ``/status/N/...``) answers HTTP N with a small page; anything
    else 200."""

    hits: list[str]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        parts = self.path.split("/")  # /status/N/anything
        status = int(parts[2]) if parts[1] == "status" else 200
        body = f"<!doctype html><title>HTTP {status}</title><p>{status}</p>".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class StatusSite:
    def __init__(self) -> None:
        self.hits: list[str] = []
        handler = type("Handler", (_Handler,), {"hits": self.hits})
        self.server = LoopbackHTTPServer(handler).start()
        self.url = self.server.base_url


@pytest.fixture(scope="module")
def site() -> Iterator[StatusSite]:
    served = StatusSite()
    yield served
    served.server.close()


@pytest.fixture
async def session(host: BrowserHost, site: StatusSite) -> AsyncIterator[BrowserSession]:
    async with await host.new_session(TEST_OPTIONS.allowing(site.url)) as opened:
        yield opened


@pytest.mark.parametrize("status", [404, 500])
async def test_a_start_page_with_an_http_error_fails(
    session: BrowserSession, site: StatusSite, status: int
) -> None:
    url = f"{site.url}/status/{status}"
    with pytest.raises(StartPageFailed) as info:
        await session.goto(url)
    error = info.value
    assert error.code == "start_page_failed" and error.fault.value == "env"
    assert error.details == {"url": url, "status": status}
    assert str(status) in error.message


async def test_a_start_page_that_answers_200_opens(
    session: BrowserSession, site: StatusSite
) -> None:
    await session.goto(f"{site.url}/status/200")
    assert (await session.observe(SHOT)).title == "HTTP 200"


async def test_pages_without_a_response_are_not_failures(host: BrowserHost) -> None:
    async with await host.new_session(TEST_OPTIONS) as session:
        await session.goto("about:blank")
    # data: is a blocked scheme under a policy: with the policy off it opens, status-free
    off = SessionOptions(network=NetworkPolicy(enabled=False))
    async with await host.new_session(off) as session:
        await session.goto("data:text/html,<title>made up</title>")
        assert (await session.observe(SHOT)).title == "made up"


async def test_an_agents_goto_to_an_error_page_is_no_start_page_failure(
    session: BrowserSession, site: StatusSite
) -> None:
    await session.goto(f"{site.url}/status/200")
    obs = await session.step(Goto(url=f"{site.url}/status/404"), SHOT)
    assert obs.last_error is None and obs.title == "HTTP 404"


async def _wait_until(condition: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(60):  # only turns a hang into a clear failure
            while not condition():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out waiting until {what}") from None


@pytest.mark.timeout(120)
async def test_the_warm_pool_keeps_no_start_page_with_an_http_error(site: StatusSite) -> None:
    """Two episodes in a row at one start URL make the pool load it ahead: a 404 there is
    not kept, so the third episode loads it itself and fails as the first two did."""
    url = f"{site.url}/status/404/warm"  # a path of its own: the hits are counted
    options = TEST_OPTIONS.allowing(site.url)
    async with Worker(WorkerConfig(warm_contexts=1, warm_options=TEST_OPTIONS)) as worker:
        for _ in range(2):
            with pytest.raises(StartPageFailed):
                await worker.create(url, options, SHOT)
        await _wait_until(
            lambda: worker.stats()["preload_failures"] == 1, "the pool tried to load it ahead"
        )
        with pytest.raises(StartPageFailed):
            await worker.create(url, options, SHOT)
        stats = worker.stats()
        assert stats["preloads"] == 0 and stats["preloaded_hits"] == 0
        assert site.hits.count("/status/404/warm") == 4  # 3 episodes and the one preload


# --- whole episodes: in this process and through a real server ---------------------------


@pytest.fixture(scope="module")
def broken_tasks() -> TaskSet:
    """A built-in task whose start page the site server does not have (it answers 404)."""
    shop = load_spec("builtin:shop")
    task = shop.tasks[0].model_copy(update={"id": "shop.missing", "start_url": "no-such.html"})
    return TaskSet(tasks=[task], sites=dict(shop.sites))


async def _episode(env: EnvClient, tasks: TaskSet, out: Path) -> EpisodeRecord:
    task = tasks.tasks[0]
    spec = EpisodeSpec(task=task, key=f"{task.id}#0", max_steps=task.max_steps)
    with RunStore(out) as store:
        return await run_episode(env, make_policy("scripted"), spec, store)


def _assert_env_fault(record: EpisodeRecord) -> None:
    assert record.outcome == "fault" and record.fault == "env", record
    assert record.reward is None and record.success is None and record.steps == 0
    assert record.error is not None and record.error.code == "start_page_failed"


async def test_an_episode_whose_start_page_404s_is_an_env_fault(
    broken_tasks: TaskSet, tmp_path: Path
) -> None:
    with SiteServer(broken_tasks.sites) as sites:
        env = InProcessEnv(sites, TEST_OPTIONS)
        try:
            record = await _episode(env, broken_tasks, tmp_path)
        finally:
            await env.aclose()
    _assert_env_fault(record)


@pytest.mark.timeout(120)
async def test_through_the_server_the_client_gets_start_page_failed(
    broken_tasks: TaskSet, tmp_path: Path
) -> None:
    app = create_app(InlinePool(), broken_tasks, ServerSettings(session=TEST_OPTIONS))
    with ThreadServer(app) as server:
        env = HttpEnv(server.url)
        try:
            with pytest.raises(StartPageFailed) as info:
                await env.open(broken_tasks.tasks[0], SHOT)
            assert info.value.details["status"] == 404
            record = await _episode(env, broken_tasks, tmp_path)
        finally:
            await env.aclose()
    _assert_env_fault(record)
