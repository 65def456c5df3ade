"""A task's absolute start URL goes through the network policy as an agent's goto does: the
in-process env allows its own site server by origin, nothing else local. A decoy server on
loopback counts every request it gets; refused start URLs must leave it at 0."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from start_url_cases import SPELLINGS, Decoy
from webdojo.browser.options import SessionOptions
from webdojo.errors import NetworkBlocked
from webdojo.observation import ObservationOptions
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.rollout.env_client import InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.sites.server import SiteServer
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task

pytestmark = pytest.mark.browser

SHOT = ObservationOptions()


@pytest.fixture(scope="module")
def decoy() -> Iterator[Decoy]:
    served = Decoy()
    yield served
    served.server.close()


def _task_at(builtin: TaskSet, url: str) -> Task:
    """A built-in task whose start URL is absolute (as a task file may say)."""
    return builtin.tasks[0].model_copy(update={"id": "start.url", "start_url": url})


@pytest.mark.parametrize("spelling", SPELLINGS)
async def test_a_local_start_url_is_refused_in_process(
    env: InProcessEnv, builtin: TaskSet, decoy: Decoy, spelling: str
) -> None:
    case = f"/start/{spelling}"
    url = "http://" + SPELLINGS[spelling].format(p=decoy.port) + case
    with pytest.raises(NetworkBlocked) as info:
        await env.open(_task_at(builtin, url), SHOT)
    assert info.value.code == "blocked_by_policy" and info.value.details["port"] == decoy.port
    assert [path for path in decoy.seen if path == case] == []


async def test_the_envs_own_site_still_opens(
    env: InProcessEnv, builtin: TaskSet, site_server: SiteServer
) -> None:
    """The site server's origin is allowed; so is the same origin as an absolute URL."""
    session, obs = await env.open(builtin.tasks[0], SHOT)
    await session.aclose()
    assert obs.url.startswith(site_server.base_url + "/")
    session, obs = await env.open(_task_at(builtin, obs.url), SHOT)
    await session.aclose()
    assert obs.url.startswith(site_server.base_url + "/") and obs.title


async def test_an_allowed_origin_lets_the_operators_loopback_server_through(
    site_server: SiteServer, builtin: TaskSet, decoy: Decoy
) -> None:
    """``--allow-host http://127.0.0.1:PORT``: the operator's own server is reachable."""
    allowed = InProcessEnv(site_server, SessionOptions().allowing(decoy.url))
    try:
        session, obs = await allowed.open(_task_at(builtin, decoy.url + "/operator"), SHOT)
        await session.aclose()
    finally:
        await allowed.aclose()
    assert obs.title == "decoy" and "/operator" in decoy.seen


async def test_an_episode_at_a_refused_start_url_is_the_tasks_fault(
    env: InProcessEnv, builtin: TaskSet, decoy: Decoy, tmp_path: Path
) -> None:
    """Unscored, and blamed on the task (config), not on an agent that never acted."""
    task = _task_at(builtin, f"http://127.1:{decoy.port}/episode")
    with RunStore(tmp_path) as store:
        record = await run_episode(
            env, ScriptedPolicy(), EpisodeSpec(task, "start.url#0", 3), store
        )
    assert (record.reward, record.fault, record.steps) == (None, "config", 0)
    assert record.error is not None and record.error.code == "bad_start_url"
    assert "blocked by the network policy" in record.error.message


def test_zz_the_decoy_got_no_request_but_the_allowed_one(decoy: Decoy) -> None:
    """Run last (file order): only the operator's allowed session reached the decoy."""
    assert [path for path in decoy.seen if path != "/operator"] == []
