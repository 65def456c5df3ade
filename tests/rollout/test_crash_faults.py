"""A page that crashes mid-episode and does not recover makes the episode a fault, never a 0:
in this process and through a `webdojo serve` process alike, wherever in the episode the
renderer dies (before a step, at the stop, or between the last step and the verdict)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from renderer_kill import kill_renderers
from webdojo.history import Decision, Step
from webdojo.observation import Observation
from webdojo.policies import make_policy
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient, InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.http_env import HttpEnv
from webdojo.server.child_process import ServerProcess
from webdojo.sites.server import SiteServer
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.schema import Task

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TASK = "shop.add-runner"  # a few steps, then stop


class CrashingPolicy:
    """The scripted policy, but the renderers die just before decision ``at`` is returned
    (None: never; ``KillBeforeVerdict`` does it later)."""

    def __init__(self, kill: Callable[[], int], at: int | None) -> None:
        self.inner: Policy = make_policy("scripted")
        self.name = "crashing"
        self.kill, self.at, self.killed = kill, at, 0

    def observation_options(self):  # type: ignore[no-untyped-def]
        return self.inner.observation_options()

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        decision = await self.inner.act(task, observation, history, seed=seed)
        if len(history) == self.at:
            self.killed += self.kill()
        return decision

    async def aclose(self) -> None:
        await self.inner.aclose()


class KillBeforeVerdict:
    """An env whose sessions lose their renderers after the last step, just before the
    final state is read and verified."""

    def __init__(self, inner: EnvClient, policy: CrashingPolicy) -> None:
        self.inner, self.policy = inner, policy

    async def open(self, task, options, session=None, *, seed=None):  # type: ignore[no-untyped-def]
        opened, obs = await self.inner.open(task, options, session, seed=seed)
        policy = self.policy

        class Session:
            def __getattr__(self, name: str) -> object:
                return getattr(opened, name)

            async def verify(self, task: Task, answer: str | None):  # type: ignore[no-untyped-def]
                policy.killed += policy.kill()
                await asyncio.sleep(0.5)  # let the crash be seen, as it would be later on
                return await opened.verify(task, answer)

        return Session(), obs

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _episode(env: EnvClient, policy: CrashingPolicy, task: Task, out: Path) -> EpisodeRecord:
    if policy.at is None:
        env = KillBeforeVerdict(env, policy)  # type: ignore[assignment]
    spec = EpisodeSpec(task=task, key=f"{task.id}#0", max_steps=task.max_steps)
    with RunStore(out) as store:
        return await run_episode(env, policy, spec, store)  # type: ignore[arg-type]


def _when(task: Task, at: str) -> int | None:
    """The decision index at which to crash: mid-episode, at the stop, or (None) after it."""
    return {"mid-episode": 1, "at-the-stop": len(task.solution) - 1, "before-the-verdict": None}[at]


def _assert_fault(record: EpisodeRecord, policy: CrashingPolicy) -> None:
    assert policy.killed >= 1  # the crash did happen
    assert record.outcome == "fault" and record.fault == "env", record
    assert record.reward is None and record.success is None and record.verifier is None
    assert record.error is not None and record.error.code in {"page_crashed", "action_failed"}


@pytest.fixture(scope="module")
def task_set() -> TaskSet:
    return load_spec("builtin:shop")


WHEN = ["mid-episode", "at-the-stop", "before-the-verdict"]


@pytest.mark.parametrize("when", WHEN)
async def test_a_crash_in_process_is_a_fault(task_set: TaskSet, tmp_path: Path, when: str) -> None:
    task = next(t for t in task_set.tasks if t.id == TASK)
    with SiteServer(task_set.sites) as sites:
        env = InProcessEnv(sites)
        try:
            host = await env.host()
            assert host.pid is not None
            policy = CrashingPolicy(lambda: kill_renderers(host.pid or 0), _when(task, when))
            record = await _episode(env, policy, task, tmp_path)
        finally:
            await env.aclose()
    _assert_fault(record, policy)


# (through the server there is no "before the verdict": the server verifies in the step that
# ends the episode, so a crash after it changes nothing that was measured)
@pytest.mark.parametrize("when", WHEN[:2])
async def test_a_crash_through_the_server_is_a_fault(
    task_set: TaskSet, tmp_path: Path, when: str
) -> None:
    task = next(t for t in task_set.tasks if t.id == TASK)
    with ServerProcess(["--workers", "0", "--tasks", "builtin:shop"]) as server:
        env = HttpEnv(server.url)
        try:
            policy = CrashingPolicy(lambda: kill_renderers(server.pid), _when(task, when))
            record = await _episode(env, policy, task, tmp_path)
        finally:
            await env.aclose()
    _assert_fault(record, policy)
