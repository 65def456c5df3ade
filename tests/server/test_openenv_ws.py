"""OpenEnv's WebSocket protocol (``/ws``) over real uvicorn, a real Chromium (InlinePool) and
openenv-core's own ``GenericEnvClient``: concurrent episodes of built-in tasks driven by their
reference solutions, the 1 MB message limit both ways, sessions closed with their socket, and
errors in OpenEnv's shape with webdojo's codes."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from webdojo.actions import Action, Stop, Wait
from webdojo.asgi import ThreadServer
from webdojo.errors import UnknownElement
from webdojo.observation import ErrorInfo, Observation
from webdojo.parsing import ParseFormat, render
from webdojo.policies.scripted import resolve_step
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.api.openenv_ws import MAX_MESSAGE_BYTES, install_openenv, step_result
from webdojo.server.api.service import SessionService
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task
from webdojo.wire.protocol import StepInfo

browser = pytest.mark.browser
TOKEN = "openenv-token-0123456789"
EPISODES = 8
SMALL = 50_000  # the message limit of the second route, /small/ws
CLIENT_MAX_MB = MAX_MESSAGE_BYTES / 2**20  # the client refuses any message over our limit
OPTIONS = {"elements": True, "jpeg_quality": 50}  # elements: to resolve the solution's targets


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT
    service: SessionService

    def base(self, path: str = "", token: str | None = TOKEN) -> str:
        """A base URL for OpenEnv's client: the token as the URL's password (it sends no
        headers; websockets turns the user info into Basic auth)."""
        host = self.url.removeprefix("http://")
        auth = "" if token is None else f"webdojo:{token}@"
        return f"http://{auth}{host}{path}"

    def ws(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def sessions(self) -> int:
        for _ in range(100):  # the server's thread may be changing the dict right now
            try:
                return len(self.service.registry.ids())
            except RuntimeError:
                time.sleep(0.01)
        raise AssertionError("could not count the sessions")

    async def wait_sessions(self, count: int, timeout_s: float = 20.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.sessions() != count:
            assert time.monotonic() < deadline, f"{self.sessions()} sessions, expected {count}"
            await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def served(builtin_tasks: TaskSet) -> Iterator[Served]:
    settings = ServerSettings(max_sessions=EPISODES + 2, token=TOKEN)
    app = create_app(InlinePool(), builtin_tasks, settings)
    service = app.state.service
    install_openenv(app, service, token=TOKEN)
    install_openenv(app, service, token=TOKEN, path="/small/ws", max_message_bytes=SMALL)
    with ThreadServer(app) as server:
        yield Served(server.url, service)


@pytest.fixture(scope="module")
def client_cls() -> Any:
    return pytest.importorskip("openenv.core.generic_client").GenericEnvClient


def short_tasks(tasks: TaskSet, count: int) -> list[Task]:
    """Verified tasks with the shortest reference solutions (a few steps each)."""
    usable = [t for t in tasks.tasks if t.solution and t.verifier is not None]
    usable.sort(key=lambda t: (len(t.solution), t.id))
    return usable[:count]


def observation_of(fields: dict[str, Any]) -> Observation:
    """webdojo's Observation back from OpenEnv's observation dict (standard base64 screenshot)."""
    return Observation.model_validate_json(
        json.dumps({k: v for k, v in fields.items() if k != "info"})
    )


def payload(action: Action, as_text: bool) -> dict[str, Any]:
    """The step's data: model text in the funcall format, or the action's JSON."""
    if as_text:
        return {"text": render(action, ParseFormat.FUNCALL), "format": "funcall"}
    return action.model_dump(mode="json", exclude_none=True)


def assert_jpeg(fields: dict[str, Any]) -> None:
    shot = fields["screenshot"]
    assert isinstance(shot, str)  # never a list of integers
    assert base64.b64decode(shot, validate=True)[:3] == b"\xff\xd8\xff"


async def next_action(env: Any, step: Any, res: Any, as_text: bool) -> tuple[Action, Any]:
    """The solution step resolved on the latest observation; a page still rendering gets a
    short wait first (as the scripted policy tries again on the next observation)."""
    for _ in range(3):
        try:
            return resolve_step(step, observation_of(res.observation)), res
        except UnknownElement:
            res = await env.step(payload(Wait(seconds=0.5), as_text))
    return resolve_step(step, observation_of(res.observation)), res


async def play(env: Any, task: Task, res: Any, as_text: bool) -> Any:
    """The reference solution, then a stop if it has none; the last result."""
    for step in task.solution:
        action, res = await next_action(env, step, res, as_text)
        res = await env.step(payload(action, as_text))
        assert_jpeg(res.observation)
        if res.done:
            return res
    return await env.step(payload(Stop(), as_text))


@browser
async def test_eight_concurrent_episodes_score_one(
    served: Served, client_cls: Any, builtin_tasks: TaskSet
) -> None:
    tasks = short_tasks(builtin_tasks, EPISODES)
    envs = [client_cls(base_url=served.base(), max_message_size_mb=CLIENT_MAX_MB) for _ in tasks]
    try:
        await asyncio.gather(*(env.connect() for env in envs))
        resets = await asyncio.gather(
            *(
                env.reset(task_id=t.id, episode_id=f"ep-{i}", observation=OPTIONS)
                for i, (env, t) in enumerate(zip(envs, tasks, strict=True))
            )
        )
        assert served.sessions() == EPISODES  # all open at once
        for res in resets:
            assert res.reward is None and res.done is False and res.observation["info"] is None
            assert_jpeg(res.observation)
        finals = await asyncio.gather(
            *(
                play(env, t, res, as_text=i % 2 == 1)  # half send model text
                for i, (env, t, res) in enumerate(zip(envs, tasks, resets, strict=True))
            )
        )
        for task, final in zip(tasks, finals, strict=True):
            info = final.observation["info"]
            assert (final.done, final.reward) == (True, 1.0), (task.id, info)
            assert info["verifier"]["passed"] is True and info["done_reason"] == "stop"
        states = await asyncio.gather(*(env.state() for env in envs))
        for i, state in enumerate(states):
            assert state["episode_id"] == f"ep-{i}" and state["done"] is True
            assert state["step_count"] >= len(tasks[i].solution)
    finally:
        await asyncio.gather(*(env.close() for env in envs))
    await served.wait_sessions(0)


@browser
async def test_step_after_done_is_a_clear_error(served: Served, client_cls: Any) -> None:
    async with client_cls(base_url=served.base()) as env:
        await env.reset(task_id="shop.price-pendant", observation={"jpeg_quality": 30})
        res = await env.step({"type": "stop", "answer": "free"})
        # the verifier ran and failed: a reward of 0, not None
        assert (res.done, res.reward) == (True, 0.0)
        assert res.observation["info"]["verifier"]["passed"] is False
        with pytest.raises(RuntimeError, match=r"invalid_state.*episode is over.*send reset"):
            await env.step({"type": "stop"})
        assert (await env.state())["step_count"] == 1
        # a reset on the same connection closes the old session and opens a new one
        first = served.service.registry.ids()
        await env.reset(task_id="shop.price-pendant", observation={"jpeg_quality": 30})
        assert served.sessions() == 1 and served.service.registry.ids() != first
    await served.wait_sessions(0)


@browser
async def test_message_over_the_limit_is_refused(served: Served, client_cls: Any) -> None:
    async with client_cls(base_url=served.base()) as env:
        await env.reset(task_id="wiki.skarn-height", observation={"jpeg_quality": 30})
        huge = {"text": "x" * (MAX_MESSAGE_BYTES + 1000), "format": "funcall"}
        with pytest.raises(RuntimeError, match=r"body_too_large.*VALIDATION_ERROR"):
            await env.step(huge)
        # refused before it was read: nothing was done, and the connection goes on
        assert (await env.state())["step_count"] == 0
        res = await env.step({"type": "wait", "seconds": 0})
        assert res.done is False and (await env.state())["step_count"] == 1
    await served.wait_sessions(0)


@browser
async def test_reply_over_the_limit_says_what_to_ask_for(served: Served, client_cls: Any) -> None:
    async with client_cls(base_url=served.base("/small")) as env:
        with pytest.raises(RuntimeError, match=rf"over the {SMALL}-byte message limit.*jpeg"):
            await env.reset(task_id="shop.price-pendant", observation={"jpeg_quality": 95})
        res = await env.reset(task_id="shop.price-pendant", observation={"screenshot": False})
        assert res.observation["screenshot"] is None
        assert served.sessions() == 1  # the first reset's session was closed by the second
    await served.wait_sessions(0)


async def _ask(ws: ClientConnection, message: str | dict[str, Any]) -> dict[str, Any]:
    await ws.send(message if isinstance(message, str) else json.dumps(message))
    reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


@browser
async def test_a_dropped_socket_closes_its_session(served: Served) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with connect(served.ws(), additional_headers=headers) as ws:
        reply = await _ask(ws, {"type": "reset", "data": {"task_id": "wiki.skarn-height"}})
        assert reply["type"] == "observation"
        assert served.sessions() == 1
    # closed without a close message
    await served.wait_sessions(0)


async def test_messages_are_not_deflated(served: Served) -> None:
    # a client offers permessage-deflate (websockets does by default); the server declines:
    # a step's JPEG does not compress, and deflating it cost 4.5 ms of CPU per step
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with connect(served.ws(), additional_headers=headers, compression="deflate") as ws:
        assert ws.protocol.extensions == []


@browser
async def test_errors_have_openenv_codes_and_webdojo_codes(served: Served) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    cases: list[tuple[str | dict[str, Any], str, str]] = [
        ("not json", "INVALID_JSON", "invalid_request"),
        ({"type": "dance"}, "UNKNOWN_TYPE", "invalid_request"),
        ({"type": "step", "data": {"type": "click", "element": 1}}, "EXECUTION_ERROR", "invalid_state"),
        ({"type": "reset", "data": {"task_id": "no.such-task"}}, "VALIDATION_ERROR", "unknown_task"),
        ({"type": "reset", "data": {"task_id": "wiki.skarn-height", "observation": {"image_format": "png"}}}, "VALIDATION_ERROR", "invalid_request"),
        ({"type": "reset", "data": {"task_id": "wiki.skarn-height", "speed": 3}}, "VALIDATION_ERROR", "invalid_request"),
    ]  # fmt: skip
    async with connect(served.ws(), additional_headers=headers) as ws:
        for message, code, ours in cases:
            reply = await _ask(ws, message)
            assert reply["type"] == "error", (message, reply)
            assert (reply["data"]["code"], reply["data"]["error"]["code"]) == (code, ours)
            assert reply["data"]["message"]
        state = await _ask(ws, {"type": "state"})
        assert state["data"]["episode_id"] is None and state["data"]["step_count"] == 0
        await ws.send(json.dumps({"type": "close"}))
        await ws.wait_closed()
    assert served.sessions() == 0


@browser
async def test_the_token_is_required(served: Served, client_cls: Any) -> None:
    for token in (None, "wrong-token"):
        env = client_cls(base_url=served.base(token=token))
        with pytest.raises(ConnectionError, match="403"):
            await env.connect()


def _obs(last_error: ErrorInfo | None = None) -> Observation:
    return Observation(
        url="http://x/", title="", tabs=[], viewport_width=10, viewport_height=10,
        screenshot=b"\xff\xd8\xff\xe0", last_error=last_error,
    )  # fmt: skip


def test_a_fault_ends_without_a_reward_and_a_verdict_is_one_or_zero() -> None:
    crash = ErrorInfo(code="page_crashed", fault="env", message="the page crashed")
    fault = step_result(_obs(crash), StepInfo(done_reason="fault"), done=True)
    assert (fault["done"], fault["reward"]) == (True, None)  # never scored 0
    assert fault["observation"]["last_error"]["code"] == "page_crashed"
    assert fault["observation"]["info"]["done_reason"] == "fault"
    assert fault["observation"]["screenshot"] == "/9j/4A=="  # standard base64, not URL-safe
    passed = StepInfo(done_reason="stop", verifier={"passed": True, "reasons": []})
    assert step_result(_obs(), passed, done=True)["reward"] == 1.0
    failed = StepInfo(done_reason="step_cap", verifier={"passed": False, "reasons": []})
    assert step_result(_obs(), failed, done=True)["reward"] == 0.0
    unverified = StepInfo(done_reason="stop")  # a task without a verifier: a judge scores it
    assert step_result(_obs(), unverified, done=True)["reward"] is None


@browser
def test_the_sync_wrapper_works_too(served: Served, client_cls: Any) -> None:
    """``EnvClient.sync()``, the form TRL's examples use."""
    with client_cls(base_url=served.base()).sync() as env:
        res = env.reset(task_id="shop.price-pendant", observation={"jpeg_quality": 30})
        assert_jpeg(res.observation)
        res = env.step({"type": "stop", "answer": "$64.00"})
        assert (res.done, res.reward) == (True, 1.0)
        assert env.state()["step_count"] == 1


@pytest.mark.slow  # runs webdojo as child processes (seconds): left out of make test-fast
def test_webdojo_serve_openenv_as_a_user_starts_it(client_cls: Any) -> None:
    """The flag, end to end: `webdojo serve --openenv` in its own process, openenv-core's
    client on /ws."""
    from webdojo.server.child_process import ServerProcess

    with (
        ServerProcess(["--openenv", "--tasks", "builtin:shop"]) as server,
        client_cls(base_url=server.url).sync() as env,
    ):
        res = env.reset(task_id="shop.price-pendant", observation={"jpeg_quality": 30})
        assert_jpeg(res.observation)
        res = env.step({"type": "stop", "answer": "$64.00"})
        assert (res.done, res.reward) == (True, 1.0)
