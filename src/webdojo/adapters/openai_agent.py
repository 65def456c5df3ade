"""AReaL's agent-workflow shape: ``await WebdojoAgent().run(row, base_url=..., api_key=...)``.

One ``run`` is one episode of the task the dataset row names, with webdojo's own engine
(``run_episode``), prompt template and openai policy against the endpoint AReaL injects; it
returns the verifier's reward (1.0 or 0.0). What lives where:

* per event loop: one browser and one site server (``environment.runtime``, shared with
  ``webdojo.make``'s environments) and one run store per directory, shared by every agent on
  the loop (copies and unpickled ones too), opened by the first run and closed when the last
  run (or ``async with agent:`` block) on the loop ends: an agent driven by ``asyncio.run``
  per episode (AReaL's proxy mode, in a process pool) leaves nothing open;
* per run: the policy and its model client: each run may name its own endpoint (AReaL's
  proxy gives every episode its own session URL and key).

The agent holds only settings, so it pickles. A fault is never a reward: an episode that
ended with ``fault`` set (``reward`` None) raises its recorded error again (``PageCrashed``,
``ModelError``...), so that AReaL drops the trajectory instead of scoring it 0. Episodes are
recorded under ``out`` (default: a temporary directory per process, kept; see ``run_dir``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.adapters.rows import check_runnable, row_seed, task_for
from webdojo.environment import runtime
from webdojo.errors import (
    ConfigError,
    InternalError,
    StateError,
    WebdojoError,
    from_info,
)
from webdojo.models import ModelConfig
from webdojo.policies import make_policy
from webdojo.policies.base import Policy
from webdojo.prompts import get_template
from webdojo.rollout.env_client import InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.run import RunConfig, config_record
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_config import RunConfigRecord
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import Site, load_spec
from webdojo.tasks.schema import Task

DEFAULT_TEMPLATE = "webgym_memory"  # `webdojo run`'s template
# RL samples: greedy replies would make every run of a GRPO group the same trajectory
DEFAULT_TEMPERATURE = 1.0
_SEED_RANGE = 2**31


# --- episodes ------------------------------------------------------------------------------


def episode_spec(task: Task, row: Mapping[str, Any], max_steps: int | None) -> EpisodeSpec:
    """A fresh episode of ``task``: a unique key (runs never replace each other in the store)
    and the row's ``seed`` for the page (seeded pages such as MiniWoB++'s), else a random one."""
    seed = row_seed(row)
    if seed is None:
        seed = secrets.randbelow(_SEED_RANGE)
    key = f"{task.id}#{secrets.token_hex(6)}"
    return EpisodeSpec(task=task, key=key, max_steps=max_steps or task.max_steps, seed=seed)


# --- results -------------------------------------------------------------------------------


def reward_of(record: EpisodeRecord, run_dir: Path | None = None) -> float:
    """The episode's reward, else the error that ended it, raised again as the class of its
    code (``errors.from_info``), with where the episode is in its details."""
    if record.reward is not None:
        return float(record.reward)
    exc: WebdojoError
    if record.error is None:
        exc = InternalError(f"episode {record.key} ended with no reward and no error")
    else:
        exc = from_info(record.error)
    exc.details.update(task=record.task_id, episode=record.key, run=str(run_dir or ""))
    raise exc


# --- per event loop: the run stores ---------------------------------------------------------


@dataclass
class _LoopState:
    """One event loop's run stores (one per directory), which every agent on the loop shares
    while runs or ``async with agent:`` blocks use them, and its share of the loop's browser
    (``environment.runtime``: the one ``webdojo.make``'s environments use too)."""

    runtime: runtime.Runtime
    stores: dict[Path, RunStore] = field(default_factory=dict)
    users: int = 0


_LOOPS: dict[asyncio.AbstractEventLoop, _LoopState] = {}
_TEMP: dict[int, Path] = {}  # pid -> the default out: one temporary directory per process
_LOCK = threading.Lock()


def _hold(sites: dict[str, Site]) -> _LoopState:
    loop = asyncio.get_running_loop()
    state = _LOOPS.get(loop)
    if state is None:
        state = _LOOPS[loop] = _LoopState(runtime.acquire(sites))
    else:
        state.runtime.serve(sites)
    state.users += 1
    return state


async def _release() -> None:
    loop = asyncio.get_running_loop()
    state = _LOOPS[loop]
    state.users -= 1
    if state.users == 0:
        del _LOOPS[loop]  # first: a run that starts meanwhile opens new ones
        for store in state.stores.values():
            store.close()
        await runtime.release(state.runtime)


# --- the agent -----------------------------------------------------------------------------


class WebdojoAgent:
    """AReaL's agent workflow over webdojo's tasks: ``await agent.run(row, **extra) -> float``.

    ``model``: the model name ("" = ``WEBDOJO_MODEL``, else the endpoint's first model).
    ``template``: the prompt template (``template_options``: its fields, e.g. ``max_images``).
    ``max_steps``: a step cap for every episode (None: each task's own). ``tasks``: the task
    spec that rows' ids are looked up in (MiniWoB++ ids work with any). ``out``: where
    records go. ``temperature`` and ``model_options`` (other ``ModelConfig`` fields:
    ``max_tokens``, ``timeout_s``...) configure every model call. Settings only: it pickles."""

    def __init__(
        self,
        model: str = "",
        template: str = DEFAULT_TEMPLATE,
        *,
        max_steps: int | None = None,
        tasks: str = "builtin",
        out: str | os.PathLike[str] | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        model_options: Mapping[str, Any] | None = None,
        template_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.template = template
        self.max_steps = max_steps
        self.tasks = tasks
        self.out = None if out is None else str(out)
        self.temperature = temperature
        self.model_options = dict(model_options or {})
        self.template_options = dict(template_options or {})
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, not {max_steps}")
        get_template(template, **self.template_options)  # a ConfigError now, not per run
        unknown = set(self.model_options) - {f.name for f in dataclasses.fields(ModelConfig)}
        if unknown:
            raise ConfigError(f"unknown model options: {', '.join(sorted(unknown))}")

    async def run(self, data: Mapping[str, Any], **extra_kwargs: Any) -> float:
        """Run one episode of the row's task and return its reward (1.0 or 0.0).

        ``extra_kwargs``: ``base_url`` and ``api_key`` of the endpoint (AReaL passes them),
        else ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (or ``WEBDOJO_MODEL_BASE_URL``/
        ``WEBDOJO_API_KEY``); other keys (AReaL's ``http_client``) are ignored: webdojo's
        model client keeps its own connections, retries and deadlines."""
        found = task_for(data, self.tasks)
        task = found.tasks[0]
        check_runnable(task)
        spec = episode_spec(task, data, self.max_steps)
        policy = self._policy(extra_kwargs)
        state = _hold(found.sites)
        try:
            store = self._store(state)
            record = await run_episode(state.runtime.env, policy, spec, store)
        finally:
            await policy.aclose()
            await _release()
        return reward_of(record, store.root)

    def task_for(self, data: Mapping[str, Any]) -> Task:
        """The row's task (see ``task_for``), checked to be one this agent can score."""
        task = task_for(data, self.tasks).tasks[0]
        check_runnable(task)
        return task

    def model_config(self, extra_kwargs: Mapping[str, Any]) -> ModelConfig:
        """The endpoint of one run: ``extra_kwargs`` over the options over the environment."""
        given = {k: extra_kwargs.get(k) for k in ("base_url", "api_key") if extra_kwargs.get(k)}
        overrides = {**self.model_options, "temperature": self.temperature, **given}
        try:
            config = ModelConfig.from_env(**overrides, model=self.model or None)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"bad model settings: {exc}") from exc
        if config is None:
            raise ConfigError(
                "no model endpoint: pass base_url= (and api_key=) to run(), as AReaL does, or "
                "set OPENAI_BASE_URL (and OPENAI_API_KEY)"
            )
        return config

    def _policy(self, extra_kwargs: Mapping[str, Any]) -> Policy:
        # A sampling seed of its own per run: a row's fixed page seed must not make every run
        # of a GRPO group sample alike (the policy seeds by the episode's seed otherwise)
        return make_policy(
            "openai",
            model_config=self.model_config(extra_kwargs),
            template=self.template,
            sampling={"seed": secrets.randbelow(_SEED_RANGE)},
            **self.template_options,
        )

    # --- the loop's browser and store ------------------------------------------------------

    async def __aenter__(self) -> WebdojoAgent:
        """Keep this loop's browser and stores open between runs (tests, evaluation loops),
        serving the sites of the agent's ``tasks``."""
        _hold(load_spec(self.tasks).sites)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await _release()

    def env(self) -> InProcessEnv:
        """This loop's environment for the agent's tasks (its browser, for tools and tests that
        look at it); only while a run or an ``async with agent:`` block holds the loop's."""
        state = _LOOPS.get(asyncio.get_running_loop())
        if state is None:
            raise StateError("no browser is held on this event loop: use `async with agent:`")
        return state.runtime.env

    def run_dir(self) -> Path:
        """Where episodes go: ``<out>/<host>-<pid>[-<thread>]-<settings digest>``: a store is
        written by one loop, and a run directory has one config."""
        base = Path(self.out) if self.out is not None else _temp_dir()
        pid, thread = os.getpid(), threading.get_native_id()
        name = f"{socket.gethostname()}-{pid}" + ("" if thread == pid else f"-{thread}")
        settings = json.dumps([self.tasks, self._extra()], sort_keys=True, default=str)
        return base / f"{name}-{hashlib.sha256(settings.encode()).hexdigest()[:8]}"

    def _store(self, state: _LoopState) -> RunStore:
        root = self.run_dir()
        if root not in state.stores:
            store = RunStore(root)
            state.stores[root] = store  # closed with the loop's state, whatever happens next
            store.write_config(self._config_record(root))
        return state.stores[root]

    def _extra(self) -> dict[str, Any]:
        """The settings a run directory records (and is named by)."""
        return {
            "template": self.template,
            "template_options": self.template_options,
            "model": self.model,
            "max_steps": self.max_steps,
            "temperature": self.temperature,
            "model_options": {k: v for k, v in self.model_options.items() if k != "api_key"},
            "adapter": "openai_agent",
        }

    def _config_record(self, root: Path) -> RunConfigRecord:
        """config.json in ``webdojo run``'s shape, so that the viewer, selection and the
        exports (which rebuild prompts from ``extra.template``) read these runs."""
        return config_record(
            RunConfig(tasks=self.tasks, policy="openai", out=str(root), extra=self._extra())
        )


def _temp_dir() -> Path:
    with _LOCK:
        if os.getpid() not in _TEMP:
            _TEMP[os.getpid()] = Path(tempfile.mkdtemp(prefix="webdojo-agent-"))
        return _TEMP[os.getpid()]
