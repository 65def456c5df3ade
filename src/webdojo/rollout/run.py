"""The main job: roll a policy out over a task set, verify, store, summarize.

Episodes run on the async engine (``webdojo.rollout.engine``), each in its own fresh browser
context; a slot is refilled as soon as its episode ends (no barrier between episodes).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.cache.record_spec import RecordSpec
from webdojo.envs.wiki_server import serve_qa
from webdojo.errors import ConfigError
from webdojo.policies.base import Policy
from webdojo.rollout.engine import AsyncEngine, EngineConfig
from webdojo.rollout.env_client import EnvClient, InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, episode_seed
from webdojo.rollout.http_env import HttpEnv
from webdojo.sites.server import SiteServer
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_config import RunConfigRecord
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task


@dataclass(frozen=True)
class RunConfig:
    tasks: str = "builtin"  # task spec (see webdojo.tasks.loader)
    policy: str = "scripted"  # scripted | random | perturbed | openai
    limit: int | None = None  # run only the first N tasks of the set (each `repeats` times)
    concurrency: int = 4  # episodes in flight; 4 saturates a 2-core machine
    repeats: int = 1  # episodes per task (pass@k style)
    seed: int = 0  # seeds the random policy and model sampling
    out: str = ""  # run directory
    viewport: tuple[int, int] = (1280, 720)
    extra: dict[str, Any] = field(default_factory=dict)  # policy settings (model, template...)
    server: str | None = None  # a `webdojo serve` URL; None = browsers in this process
    site_port: int = 0  # the built-in sites' port (0: any free one). A fixed port keeps page
    # URLs, and so the prompts that show them, the same from run to run (training wants that)
    token: str | None = field(default=None, repr=False)  # the server's bearer token
    archive: str | None = None  # replay every page from this cache archive (no network)
    record: RecordSpec | None = None  # record every session's traffic into a cache archive
    browser_args: tuple[str, ...] = ()  # extra Chromium flags (--host-resolver-rules=...)
    wiki: str | None = None  # a ZIM file: serve it and start every task at its search page
    wiki_backend: str = "auto"  # auto | kiwix | libzim (webdojo.envs.wiki_server)
    # what the agent's browser may reach (in-process browsers; a server has its own)
    network: NetworkPolicy = field(default_factory=NetworkPolicy)


ProgressHook = Callable[[EpisodeRecord], None]


def plan_episodes(task_set: TaskSet, config: RunConfig) -> list[EpisodeSpec]:
    """``config.repeats`` episodes of each of the first ``config.limit`` tasks (all when None),
    keyed ``<task_id>#<repeat>``. Repeat-major: every task's repeat 0 comes before any
    repeat 1, so a run cut off early still covers the tasks."""
    tasks = task_set.tasks[: config.limit] if config.limit else task_set.tasks
    return [_spec(task, repeat, config.seed) for repeat in range(config.repeats) for task in tasks]


def _spec(task: Task, repeat: int, run_seed: int) -> EpisodeSpec:
    key = f"{task.id}#{repeat}"
    return EpisodeSpec(
        task=task,
        key=key,
        max_steps=task.max_steps,
        seed=episode_seed(run_seed, key),
        repeat=repeat,
    )


async def run_job(
    config: RunConfig,
    task_set: TaskSet,
    policy: Policy,
    on_episode: ProgressHook | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> list[EpisodeRecord]:
    """Run every planned episode not already finished in ``config.out``; return new records."""
    root = Path(config.out)
    session = SessionOptions(
        viewport_width=config.viewport[0],
        viewport_height=config.viewport[1],
        archive=config.archive,
        record=config.record,
        network=config.network,
    )
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(RunStore(root))
        store.write_config(config_record(config))
        # QA on an offline Wikipedia: every episode starts at its search page. A server
        # serves its own (`webdojo serve --wiki`) and starts its sessions there.
        if config.wiki and not config.server:
            task_set, origin = serve_qa(task_set, config.wiki, stack, backend=config.wiki_backend)
            session = session.allowing(origin)  # the env's own server: allowed by its origin
        specs = plan_episodes(task_set, config)
        env = _make_env(config, task_set, session, stack)
        engine = AsyncEngine(
            env,
            policy,
            store,
            EngineConfig(episodes=max(1, config.concurrency)),
            on_episode=on_episode,
            on_start=on_start,
        )
        try:
            return await engine.run(specs)
        finally:
            await env.aclose()
            await policy.aclose()


async def run_episodes(
    env: EnvClient,
    specs: list[EpisodeSpec],
    policy: Policy,
    store: RunStore,
    concurrency: int,
    on_episode: ProgressHook | None = None,
) -> list[EpisodeRecord]:
    """``concurrency`` slots over ``specs`` (finished keys in ``store`` are skipped): the async
    engine with no separate policy/env limits."""
    engine = AsyncEngine(
        env, policy, store, EngineConfig(episodes=max(1, concurrency)), on_episode=on_episode
    )
    return await engine.run(specs)


def _make_env(
    config: RunConfig, task_set: TaskSet, session: SessionOptions, stack: contextlib.ExitStack
) -> EnvClient:
    """Sessions on a server (which serves the sites itself), or in this process."""
    if config.server:
        if config.archive or config.record or config.browser_args:
            raise ConfigError(
                "archives and browser flags are the server's options (`webdojo serve --archive`)"
            )
        if config.network != NetworkPolicy():
            raise ConfigError(
                "the network policy is the server's (`webdojo serve --allow-host/--deny-host/"
                "--network-policy`), not the client's"
            )
        return HttpEnv(config.server, config.token, default_session=session)
    server = stack.enter_context(SiteServer(task_set.sites, port=config.site_port))
    return InProcessEnv(server, session, BrowserConfig(extra_args=config.browser_args))


def config_record(config: RunConfig) -> RunConfigRecord:
    """What the run's config.json records (the token, a secret, left out)."""
    data = asdict(config)
    data.pop("token")  # a secret: never written to the run directory
    return RunConfigRecord.model_validate(data)
