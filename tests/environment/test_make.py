"""``webdojo.make`` / ``webdojo.make_async``: one task as an environment, on real Chromium and
the built-in sites, driven by the tasks' reference and wrong solutions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import webdojo
from reference_tasks import one_per_site, spread_tasks
from webdojo.actions import Stop
from webdojo.environment import runtime
from webdojo.environment.async_env import AsyncEnv
from webdojo.errors import PageCrashed, StateError, UnknownTask
from webdojo.history import Step
from webdojo.observation import ObservationOptions
from webdojo.policies.scripted import ScriptedPolicy

pytestmark = pytest.mark.browser
ELEMENTS = ObservationOptions(elements=True)


async def play(env: AsyncEnv, policy: ScriptedPolicy) -> tuple[float, dict[str, Any], int]:
    """Drive one episode with ``policy``; (reward, last info, steps)."""
    obs, info = await env.reset()
    history: list[Step] = []
    while True:
        decision = await policy.act(env.task, obs, history, seed=info["seed"])
        assert decision.action is not None, decision.error
        history.append(Step(index=len(history), observation=obs, decision=decision))
        obs, reward, terminated, truncated, info = await env.step(decision.action)
        if terminated or truncated:
            return reward, info, len(history)


async def test_reference_solutions_score_1_and_wrong_ones_0() -> None:
    """One task per built-in site through ``make_async`` (the ``core`` suite's test solves every
    task; what this proves is the environment's rewards and episode ends)."""
    ids = [task.id for task in one_per_site()]
    limit = asyncio.Semaphore(4)

    async def both(task_id: str) -> tuple[float, float]:
        async with limit, await webdojo.make_async(task_id, observation=ELEMENTS) as env:
            right, info, steps = await play(env, ScriptedPolicy(screenshot=False))
            assert info["done_reason"] == "stopped" and info["verifier"]["passed"]
            assert steps == info["step"] == len(env.task.solution)
            wrong, _, _ = await play(env, ScriptedPolicy(wrong_index=0, screenshot=False))
            return right, wrong

    results = await asyncio.gather(*(both(t) for t in ids))
    assert [r for r, _ in results] == [1.0] * len(ids)
    assert [w for _, w in results] == [0.0] * len(ids)
    assert not runtime._RUNTIMES  # the last environment closed the shared browser


async def test_text_actions_are_parsed_and_bad_text_is_shown_to_the_agent() -> None:
    async with await webdojo.make_async("login.account-id", observation=ELEMENTS) as env:
        obs, info = await env.reset()
        assert info["step"] == 0 and info["instruction"] == env.task.instruction
        obs, reward, terminated, truncated, info = await env.step("this is not an action")
        assert info["error"]["code"] == "parse_error" and info["step"] == 1
        assert obs.last_error is not None and obs.last_error.code == "parse_error"
        assert (reward, terminated, truncated) == (0.0, False, False)
        _, reward, terminated, truncated, info = await env.step('stop("LL-00000")')
        assert terminated and not truncated and info["answer"] == "LL-00000"
        assert reward == 0.0 and not info["verifier"]["passed"]  # the wrong account id
        with pytest.raises(StateError, match="reset"):
            await env.step(Stop())


async def test_the_step_cap_truncates_and_a_new_episode_starts_fresh() -> None:
    """A reset opens a fresh browser context: nothing the last episode stored is left (the
    admin site keeps its state in localStorage, which its verifier reads)."""
    task_id = "admin.deactivate-priya"
    async with await webdojo.make_async(task_id, observation=ELEMENTS, max_steps=2) as env:
        _, info = await env.reset()
        assert info["max_steps"] == 2
        await env.step("scroll(down)")
        _, reward, terminated, truncated, info = await env.step("scroll(down)")
        assert truncated and not terminated and info["done_reason"] == "step_cap"
    async with await webdojo.make_async(task_id, observation=ELEMENTS) as env:
        assert (await play(env, ScriptedPolicy(screenshot=False)))[0] == 1.0
        await env.reset()
        _, reward, _, _, _ = await env.step(Stop())
        assert reward == 0.0  # had the deactivation leaked into this episode, it would pass


async def test_miniwob_tasks_by_either_name_and_seeded_instances() -> None:
    for name in ("miniwob.click-test", "miniwob:click-button"):
        async with await webdojo.make_async(name, observation=ELEMENTS) as env:
            reward, info, _ = await play(env, ScriptedPolicy(screenshot=False))
            assert reward == 1.0 and info["done_reason"] == "done"
    async with await webdojo.make_async("miniwob.click-button", observation=ELEMENTS) as env:
        goals = set()
        for seed in (1, 2, 1):
            obs, _ = await env.reset(seed=seed)
            goals.add((seed, obs.title))
        assert len(goals) == 2  # seed 1 twice: the same instance


async def test_unknown_tasks_name_close_ones() -> None:
    with pytest.raises(UnknownTask, match=r"did you mean admin\.deactivate-priya"):
        await webdojo.make_async("admin.deactivate-pria")
    with pytest.raises(UnknownTask, match=r"no task 'nosuchsite\.x'"):
        await webdojo.make_async("nosuchsite.x")
    with pytest.raises(UnknownTask, match="names 11 tasks"):
        await webdojo.make_async("builtin:login")
    assert not runtime._RUNTIMES


async def test_a_crashed_page_raises_its_fault_and_closes_the_session() -> None:
    async with await webdojo.make_async("login.account-id", observation=ELEMENTS) as env:
        await env.reset()
        tab = env._session.inner._tabs.current  # type: ignore[union-attr]
        cdp = await tab.cdp()
        crash = asyncio.ensure_future(cdp.send("Page.crash"))  # answered by no one
        await asyncio.sleep(0.3)
        with pytest.raises(PageCrashed):
            await env.step("scroll(down)")
        crash.cancel()
        assert env._session is None  # closed; the next reset opens a new one
        obs, info = await env.reset()
        assert info["step"] == 0 and obs.url.endswith("/login/index.html")


def test_the_blocking_env_shares_one_browser_and_closes_cleanly() -> None:
    envs = [webdojo.make(task.id, observation=ELEMENTS) for task in spread_tasks(4)]
    try:
        for env in envs:
            obs, info = env.reset()
            assert obs.screenshot and info["task_id"] == env.task.id
        assert len({id(env.inner._client) for env in envs}) == 1  # one shared browser
    finally:
        for env in envs:
            env.close()
            env.close()  # twice is fine
