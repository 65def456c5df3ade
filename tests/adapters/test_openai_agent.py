"""webdojo.adapters.openai_agent: AReaL's agent workflow, one episode per ``run``, against the
local fake OpenAI endpoint, on real headless Chromium and the built-in sites.

The fake answers with each task's reference solution in the template's own syntax: the
scripted policy, as the template's teacher, writes those replies on the agent's own browser
first (element ids are the page's). ``funcall`` is the template here because it can say every
reference action (``select`` included, which the default qwen-format template cannot)."""

from __future__ import annotations

import asyncio
import pickle
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import psutil
import pytest

from fakes.openai_server import FakeOpenAIServer, message_text
from reference_tasks import short_tasks
from renderer_kill import kill_renderers
from webdojo.actions import Scroll, Stop
from webdojo.adapters.openai_agent import DEFAULT_TEMPLATE, WebdojoAgent
from webdojo.errors import ConfigError, EnvError, Fault, TaskFileError, UnknownTask
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.prompts import get_template
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.store.run_config import read_config
from webdojo.store.run_reader import read_episodes, read_run
from webdojo.store.run_store import RunStore
from webdojo.tasks.schema import Task

pytestmark = [pytest.mark.browser]

TEMPLATE = "funcall"
N_TASKS = 20
CONCURRENCY = 4  # episodes at once: saturates 2 cores
ANSWER_TASK = "shop.price-pendant"  # its verifier reads the answer only: one stop scores it
ANSWER = "$64.00"
KEY = "test-key"


# --- fixtures and helpers ------------------------------------------------------------------


@pytest.fixture(scope="module")
async def agent(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[WebdojoAgent]:
    """One agent whose loop's browser stays open for the module (``async with``)."""
    made = WebdojoAgent(
        template=TEMPLATE,
        out=tmp_path_factory.mktemp("agent"),
        model_options={"timeout_s": 10.0, "max_retries": 0},
        template_options={"screenshot": False},  # the accessibility tree names the ids; the
        # screenshot path is the default template's (below); they cost a quarter of the 20 runs
    )
    async with made:
        yield made


async def limited(coros: list[Coroutine[Any, Any, Any]]) -> list[Any]:
    limiter = asyncio.Semaphore(CONCURRENCY)

    async def one(coro: Coroutine[Any, Any, Any]) -> Any:
        async with limiter:
            return await coro

    return await asyncio.gather(*(one(c) for c in coros))


async def reference_replies(
    agent: WebdojoAgent, tasks: list[Task], out: Path
) -> dict[str, list[str]]:
    """Each task's reference solution as the template's replies, one per step."""
    # the template's syntax without its screenshots (ids come from the elements): faster
    policy = ScriptedPolicy(text_format=get_template(TEMPLATE).parse_format, screenshot=False)
    with RunStore(out) as store:
        specs = [EpisodeSpec(task=t, key=t.id, max_steps=t.max_steps) for t in tasks]
        records = await limited([run_episode(agent.env(), policy, s, store) for s in specs])
    assert all(r.success for r in records), [(r.task_id, r.error) for r in records]
    attempts = read_run(out).attempts
    return {r.task_id: [step.text for step in attempts[r.episode]] for r in records}


class ReplayByTask:
    """Answers each request with the next reply of the task whose instruction it holds."""

    def __init__(self, tasks: list[Task], replies: dict[str, list[str]]) -> None:
        self.queues = {t.instruction: deque(replies[t.id]) for t in tasks}

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = "\n".join(message_text(m) for m in body["messages"])
        (instruction,) = [i for i in self.queues if i in prompt]
        return self.queues[instruction].popleft()  # none left: a 500, and the test fails


def chromium_pids() -> set[int]:
    return {
        p.pid
        for p in psutil.Process().children(recursive=True)
        if "chrom" in p.name().lower() and p.is_running()
    }


def endpoint(server: FakeOpenAIServer) -> dict[str, str]:
    """What AReaL passes to ``run``."""
    return {"base_url": server.base_url, "api_key": KEY}


# --- tests ---------------------------------------------------------------------------------


@pytest.mark.slow
async def test_twenty_builtin_tasks_score_one_with_one_request_per_step(
    agent: WebdojoAgent, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    tasks = short_tasks(N_TASKS)
    replies = await reference_replies(agent, tasks, tmp_path / "teacher")
    replay = ReplayByTask(tasks, replies)
    fake_openai.respond_with(replay)

    rewards = await limited([agent.run({"task_id": t.id}, **endpoint(fake_openai)) for t in tasks])

    assert rewards == [1.0] * N_TASKS and all(type(r) is float for r in rewards)
    steps = sum(len(r) for r in replies.values())
    assert len(fake_openai.requests) == steps and not any(replay.queues.values())
    stored = [e for e in read_episodes(agent.run_dir()).values() if e.task_id in replies]
    assert sorted(e.task_id for e in stored) == sorted(replies)
    assert all(e.reward == 1.0 and e.steps == len(replies[e.task_id]) for e in stored)


async def test_an_agent_pickles_and_its_copy_runs(
    agent: WebdojoAgent, fake_openai: FakeOpenAIServer
) -> None:
    copy = pickle.loads(pickle.dumps(agent))
    assert vars(copy) == vars(agent)
    assert copy.env() is agent.env()  # one browser per event loop, copies included
    fake_openai.push(get_template(TEMPLATE).render(Stop(answer=ANSWER)))
    assert await copy.run({"task_id": ANSWER_TASK}, **endpoint(fake_openai)) == 1.0
    assert len(fake_openai.requests) == 1


async def test_a_page_crash_mid_episode_raises_the_fault_and_closes_the_session(
    agent: WebdojoAgent, fake_openai: FakeOpenAIServer
) -> None:
    host = await agent.env().host()
    assert host.pid is not None
    scroll = get_template(TEMPLATE).render(Scroll(direction="down"))
    killed: list[int] = []

    def crash_at_second_step(body: dict[str, Any]) -> str:
        if len(fake_openai.requests) == 2:  # the page is gone before step 2 is acted on
            killed.append(kill_renderers(host.pid or 0))
        return scroll

    fake_openai.respond_with(crash_at_second_step)
    with pytest.raises(EnvError) as caught:
        await agent.run({"task_id": "shop.add-runner"}, **endpoint(fake_openai))

    assert killed and killed[0] >= 1
    error = caught.value
    assert error.fault is Fault.ENV and error.code in {"page_crashed", "action_failed"}
    record = read_episodes(agent.run_dir())[error.details["episode"]]
    assert record.reward is None and record.fault == "env" and record.error is not None
    assert host.sessions == 0 and host.is_connected()  # the session closed; the browser lives
    fake_openai.reset()
    fake_openai.push(get_template(TEMPLATE).render(Stop(answer=ANSWER)))
    assert await agent.run({"task_id": ANSWER_TASK}, **endpoint(fake_openai)) == 1.0


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ({}, TaskFileError),
        ({"task_id": " "}, TaskFileError),
        ({"prompt": "Buy a lamp"}, TaskFileError),
        ({"task": {"id": "half-a-task"}}, TaskFileError),
        ({"task_id": "shop.no-such-task"}, UnknownTask),
        ({"task_id": "miniwob:no-such-page"}, UnknownTask),
    ],
)
async def test_a_row_without_a_known_task_is_a_config_error(
    row: dict[str, Any], error: type[Exception], fake_openai: FakeOpenAIServer
) -> None:
    with pytest.raises(error) as caught:
        await WebdojoAgent().run(row, **endpoint(fake_openai))
    assert isinstance(caught.value, ConfigError) and caught.value.fault is Fault.CONFIG
    assert fake_openai.requests == []


def clear_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WEBDOJO_MODEL_BASE_URL", "WEBDOJO_API_KEY", "WEBDOJO_MODEL", "OPENAI_BASE_URL",
                 "OPENAI_API_KEY"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


async def test_openai_base_url_and_key_alone_name_the_endpoint(
    fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clear_model_env(monkeypatch)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    agent = WebdojoAgent(out=tmp_path)  # the default template: qwen format with memory
    fake_openai.push(get_template(DEFAULT_TEMPLATE).render(Stop(answer=ANSWER)))

    assert await agent.run({"task_id": ANSWER_TASK}) == 1.0
    assert len(fake_openai.requests) == 1
    config = read_config(agent.run_dir())
    assert config is not None and config.extra.template == DEFAULT_TEMPLATE


async def test_no_endpoint_anywhere_is_a_config_error(
    fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_model_env(monkeypatch)
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        await WebdojoAgent().run({"task_id": ANSWER_TASK})


async def test_asyncio_run_per_episode_leaves_no_browser(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """AReaL's proxy mode: each episode under ``asyncio.run`` (here in a thread, as a
    process pool worker would): its browser goes when its run ends."""
    before = chromium_pids()
    agent = WebdojoAgent(out=tmp_path)
    fake_openai.push(get_template(DEFAULT_TEMPLATE).render(Stop(answer=ANSWER)))
    episode: Callable[[], float] = lambda: asyncio.run(  # noqa: E731
        agent.run({"task_id": ANSWER_TASK}, **endpoint(fake_openai))
    )
    assert await asyncio.to_thread(episode) == 1.0
    assert chromium_pids() <= before
