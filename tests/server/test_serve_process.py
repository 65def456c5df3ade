"""``webdojo serve --workers 0`` as a real child process, driven over HTTP.

One server process for the module (bearer token, room for 3 sessions, 5 s navigation
deadline). The browser-killing test runs last: it relaunches the server's Chromium.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import psutil
import pytest

from webdojo.actions import Goto, Scroll
from webdojo.errors import NavigationTimeout
from webdojo.observation import ObservationOptions
from webdojo.policies import make_policy
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.http_env import HttpEnv, HttpSession
from webdojo.server.child_process import ServerProcess
from webdojo.store.run_store import RunStore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TOKEN = "test-token-0123456789"  # the server_process fixture's (tests/server/conftest.py)
AUTH = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture(autouse=True)
def _same_token(server_token: str) -> None:
    assert server_token == TOKEN


@pytest.fixture
async def client(server_process: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server_process.url, headers=AUTH, timeout=60) as c:
        yield c


async def _open(client: httpx.AsyncClient, **body: object) -> dict:
    response = await client.post("/v1/sessions", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


class _Recording:
    """An EnvClient that keeps the sessions it opened, to look at their last response."""

    def __init__(self, env: HttpEnv) -> None:
        self.env = env
        self.sessions: list[HttpSession] = []

    async def open(  # type: ignore[no-untyped-def]
        self, task: Task, options: ObservationOptions, session: object = None, *, seed=None
    ):
        opened, obs = await self.env.open(task, options, seed=seed)
        self.sessions.append(opened)
        return opened, obs

    async def aclose(self) -> None:
        await self.env.aclose()


async def test_full_episode_through_the_server_process(
    server_process: ServerProcess, builtin_tasks: TaskSet, tmp_path: Path
) -> None:
    task = next(t for t in builtin_tasks.tasks if t.id == "shop.add-runner")
    env = _Recording(HttpEnv(server_process.url, token=TOKEN))
    spec = EpisodeSpec(task=task, key=f"{task.id}#0", max_steps=task.max_steps)
    try:
        with RunStore(tmp_path) as store:
            record = await run_episode(env, make_policy("scripted"), spec, store)  # type: ignore[arg-type]
    finally:
        await env.aclose()
    assert record.outcome == "stopped", record
    assert record.success is True, record.verifier
    last = env.sessions[0].last
    assert last is not None and last.done and last.info.done_reason is EndReason.STOPPED
    assert last.info.verifier is not None and last.info.verifier.passed is True
    assert env.sessions[0].max_steps == task.max_steps


async def test_health_needs_no_token_and_everything_else_does(
    server_process: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=server_process.url, timeout=30) as anonymous:
        health = await anonymous.get("/v1/health")
        assert health.status_code == 200
        assert health.json()["status"] == "ok" and health.json()["max_sessions"] == 3
        for method, path in [
            ("POST", "/v1/sessions"),
            ("GET", "/metrics"),
            ("GET", "/openapi.json"),
            ("DELETE", "/v1/sessions/abc"),
        ]:
            response = await anonymous.request(method, path, json={})
            assert response.status_code == 401, (method, path)
            assert response.json()["error"]["code"] == "unauthorized"
            assert response.headers["www-authenticate"] == "Bearer"
        wrong = await anonymous.get("/metrics", headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401


async def test_metrics_in_prometheus_format(client: httpx.AsyncClient) -> None:
    await client.post("/v1/sessions/no-such-session/observe")  # one counted error
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    for needle in [
        'webdojo_sessions{state="open"}',
        "webdojo_max_sessions 3.0",
        'webdojo_queue_depth{op="execute"}',
        "webdojo_workers_alive 1.0",
        "webdojo_worker_restarts_total",
        'webdojo_operation_seconds_bucket{le="0.05",op="observe"}',
        'webdojo_errors_total{code="unknown_session"}',
        "webdojo_sessions_opened_total",
    ]:
        assert needle in text, needle


async def test_429_past_max_sessions(client: httpx.AsyncClient, test_site: str) -> None:
    ids = [
        (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"] for _ in range(3)
    ]
    try:
        response = await client.post("/v1/sessions", json={"start_url": f"{test_site}/plain.html"})
        assert response.status_code == 429
        assert response.json()["error"]["code"] == "overloaded"
        assert response.json()["error"]["retryable"] is True
        assert int(response.headers["retry-after"]) >= 1
    finally:
        for session_id in ids:
            assert (await client.delete(f"/v1/sessions/{session_id}")).status_code == 204
    again = await _open(client, start_url=f"{test_site}/plain.html")  # room again
    await client.delete(f"/v1/sessions/{again['session_id']}")


async def test_413_on_a_huge_body(client: httpx.AsyncClient) -> None:
    huge = b'{"task_id": "' + b"x" * 2_000_000 + b'"}'
    declared = await client.post("/v1/sessions", content=huge)
    assert declared.status_code == 413
    assert declared.json()["error"]["code"] == "body_too_large"

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        for i in range(0, len(huge), 64_000):
            yield huge[i : i + 64_000]

    streamed = await client.post("/v1/sessions", content=chunks())
    assert streamed.status_code == 413
    assert streamed.json()["error"]["code"] == "body_too_large"


async def test_wrong_step_index_idempotent_retry_and_reused_index(
    client: httpx.AsyncClient, test_site: str
) -> None:
    created = await _open(
        client, start_url=f"{test_site}/counter.html", observation={"elements": True}
    )
    sid = created["session_id"]
    button = next(e["id"] for e in created["observation"]["elements"] if e["html_id"] == "inc")
    click = {"type": "click", "element": button}
    try:
        early = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 1, "action": click}
        )
        assert early.status_code == 409
        assert early.json()["error"]["code"] == "invalid_state"
        assert early.json()["error"]["details"]["expected"] == 0

        first = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 0, "action": click}
        )
        retry = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 0, "action": click}
        )
        assert first.status_code == retry.status_code == 200
        assert retry.json() == first.json()  # the recorded response, not a second click
        scroll = {"type": "scroll", "direction": "down"}  # the index reused for another action
        conflict = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 0, "action": scroll}
        )
        assert conflict.status_code == 409
        assert conflict.json()["error"]["code"] == "step_conflict"
        assert conflict.json()["error"]["details"]["expected"] == 1

        final = await client.post(f"/v1/sessions/{sid}/final_state", json={})
        assert final.json()["final_state"]["storage"]["count"] == 1
        assert final.json()["verifier"] is None  # a start URL has no task

        skipped = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 3, "action": click}
        )
        assert skipped.status_code == 409 and skipped.json()["error"]["details"]["expected"] == 1
    finally:
        await client.delete(f"/v1/sessions/{sid}")


async def test_bad_requests_get_clear_codes(client: httpx.AsyncClient, test_site: str) -> None:
    malformed = await client.post(
        "/v1/sessions", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 422
    assert malformed.json()["error"]["code"] == "invalid_request"

    both = await client.post("/v1/sessions", json={"task_id": "x", "start_url": "http://a.b"})
    assert both.status_code == 422 and both.json()["error"]["code"] == "invalid_request"

    unknown_task = await client.post("/v1/sessions", json={"task_id": "no.such-task"})
    assert unknown_task.status_code == 422
    assert unknown_task.json()["error"]["code"] == "unknown_task"

    unknown = await client.post(
        "/v1/sessions/deadbeef/step", json={"step_index": 0, "action": {"type": "stop"}}
    )
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_session"

    sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
    assert (await client.delete(f"/v1/sessions/{sid}")).status_code == 204
    double = await client.delete(f"/v1/sessions/{sid}")
    assert double.status_code == 409 and double.json()["error"]["code"] == "session_closed"
    after = await client.post(
        f"/v1/sessions/{sid}/step", json={"step_index": 0, "action": {"type": "stop"}}
    )
    assert after.status_code == 409 and after.json()["error"]["code"] == "session_closed"


async def test_hung_navigation_fails_typed_while_others_keep_working(
    server_process: ServerProcess, test_site: str
) -> None:
    env = HttpEnv(server_process.url, token=TOKEN)
    options = ObservationOptions()
    try:
        healthy, _ = await env.open_url(f"{test_site}/plain.html", options)

        async def keep_stepping() -> int:
            steps = 0
            while not hung.done():
                await healthy.step(Scroll(direction="down" if steps % 2 else "up"), options)
                steps += 1
            return steps

        hung = asyncio.ensure_future(env.open_url(f"{test_site}/slow", options))
        steps = await asyncio.wait_for(keep_stepping(), timeout=60)
        with pytest.raises(NavigationTimeout) as caught:
            await hung
        assert caught.value.retryable is True
        assert steps >= 1  # the other session stepped while the navigation hung

        # the same through a step: the agent sees it in the observation, the session goes on
        obs = await healthy.step(Goto(url=f"{test_site}/slow"), options)
        assert obs.last_error is not None and obs.last_error.code == "navigation_timeout"
        assert (await healthy.observe(options)).url
        await healthy.aclose()
    finally:
        await env.aclose()


def test_refuses_a_public_address_without_a_token() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webdojo.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "bearer token" in done.stderr


def _browser_pid(server_pid: int) -> int:
    """The Chromium browser process under the server: the Chromium whose parent is not one
    (renderers, the GPU process and zygotes descend from it; their names vary by build)."""

    def is_chromium(proc: psutil.Process) -> bool:
        return "chrom" in proc.name().lower() or "chrom" in " ".join(proc.cmdline()[:1])

    for child in psutil.Process(server_pid).children(recursive=True):
        parent = child.parent()
        if is_chromium(child) and parent is not None and not is_chromium(parent):
            return child.pid
    raise AssertionError("no browser process under the server")


async def test_killed_browser_gives_session_lost_and_the_server_survives(
    client: httpx.AsyncClient, server_process: ServerProcess, test_site: str
) -> None:
    sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
    os.kill(_browser_pid(server_process.pid), signal.SIGKILL)
    step = {"step_index": 0, "action": {"type": "scroll", "direction": "down"}}
    lost = await client.post(f"/v1/sessions/{sid}/step", json=step)
    assert lost.status_code == 503
    assert lost.json()["error"]["code"] == "session_lost"
    assert lost.json()["error"]["retryable"] is True
    again = await client.post(f"/v1/sessions/{sid}/observe")
    assert again.json()["error"]["code"] == "session_lost"
    assert (await client.delete(f"/v1/sessions/{sid}")).status_code == 204

    fresh = await _open(client, start_url=f"{test_site}/plain.html")  # a new browser
    await client.delete(f"/v1/sessions/{fresh['session_id']}")
    assert server_process.alive()
    metrics = (await client.get("/metrics")).text
    assert "webdojo_worker_restarts_total 1.0" in metrics
    assert 'webdojo_errors_total{code="session_lost"}' in metrics


async def test_reaper_closes_idle_sessions_of_a_server_process(test_site: str) -> None:
    args = ["--workers", "0", "--idle-ttl", "1", "--allow-host", test_site]
    with ServerProcess(args) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
            for _ in range(300):  # no timing assertion: wait until the reaper has been by
                await asyncio.sleep(0.1)
                if (await client.get("/v1/health")).json()["sessions"] == 0:
                    break
            expired = await client.post(
                f"/v1/sessions/{sid}/step", json={"step_index": 0, "action": {"type": "stop"}}
            )
            assert expired.status_code == 410
            assert expired.json()["error"]["code"] == "session_expired"
