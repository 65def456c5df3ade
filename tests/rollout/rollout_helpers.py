"""Instrumented wrappers for rollout tests: they count concurrency and log the order of
operations, so that tests can check limits and lock-step without measuring time."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import ModelError
from webdojo.history import Decision, Step
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient, EnvSession
from webdojo.rollout.episode import EpisodeSpec
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult


@dataclass
class Gauge:
    """Counts calls in progress and remembers the most at once."""

    now: int = 0
    peak: int = 0

    def __enter__(self) -> Gauge:
        self.now += 1
        self.peak = max(self.peak, self.now)
        return self

    def __exit__(self, *exc: object) -> None:
        self.now -= 1


@dataclass
class Log:
    """An ordered log of (event, session number, step index)."""

    events: list[tuple[str, int, int]] = field(default_factory=list)

    def add(self, event: str, session: int, step: int) -> None:
        self.events.append((event, session, step))

    def positions(self, event: str, step: int) -> list[int]:
        return [i for i, (e, _, k) in enumerate(self.events) if e == event and k == step]


class RecordingEnv:
    """Wraps an env: counts open sessions and concurrent operations, logs each step."""

    def __init__(self, inner: EnvClient, log: Log | None = None) -> None:
        self.inner = inner
        self.log = log or Log()
        self.calls = Gauge()  # env operations in progress
        self.sessions = Gauge()  # sessions open
        self._next = 0

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[EnvSession, Observation]:
        number = self._next
        self._next += 1
        self.log.add("open", number, -1)
        with self.calls:
            inner, obs = await self.inner.open(task, options, session, seed=seed)
        self.sessions.__enter__()
        return _RecordingSession(self, inner, number), obs

    async def aclose(self) -> None:
        return None  # the shared env belongs to the fixture


class _RecordingSession:
    def __init__(self, env: RecordingEnv, inner: EnvSession, number: int) -> None:
        self.env, self.inner, self.number, self.steps = env, inner, number, 0

    async def _step(self, op: Any) -> Observation:
        index = self.steps
        self.steps += 1
        self.env.log.add("step_start", self.number, index)
        with self.env.calls:
            obs = await op
        self.env.log.add("step_end", self.number, index)
        return obs

    async def observe(self, options: ObservationOptions) -> Observation:
        return await self._step(self.inner.observe(options))

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        return await self._step(self.inner.step(action, options))

    async def final_state(self, answer: str | None) -> FinalState:
        with self.env.calls:
            return await self.inner.final_state(answer)

    async def verify(self, task: Task, answer: str | None) -> tuple[FinalState, VerifyResult]:
        with self.env.calls:
            return await self.inner.verify(task, answer)

    async def aclose(self) -> None:
        self.env.log.add("close", self.number, -1)
        self.env.sessions.__exit__()
        with self.env.calls:
            await self.inner.aclose()


class RecordingPolicy:
    """Wraps a policy: counts concurrent calls, logs each call's start with its step index,
    and raises ``ModelError`` for the tasks named in ``fail_tasks``."""

    def __init__(
        self,
        inner: Policy,
        log: Log | None = None,
        fail_tasks: frozenset[str] = frozenset(),
        delay_s: float = 0.0,
    ) -> None:
        self.inner = inner
        self.delay_s = delay_s  # a model call's wait, so that concurrent calls overlap
        self.name = inner.name
        self.log = log or Log()
        self.calls = Gauge()
        self.fail_tasks = set(fail_tasks)

    def observation_options(self) -> ObservationOptions:
        return self.inner.observation_options()

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        self.log.add("act", -1, len(history))
        if task.id in self.fail_tasks:
            raise ModelError("the model endpoint refused the connection (test)")
        with self.calls:
            await asyncio.sleep(self.delay_s)
            return await self.inner.act(task, observation, history, seed=seed)

    async def aclose(self) -> None:
        await self.inner.aclose()


def specs_for(tasks: list[Task], repeats: int = 1) -> list[EpisodeSpec]:
    return [
        EpisodeSpec(task=t, key=f"{t.id}#{r}", max_steps=t.max_steps, repeat=r)
        for r in range(repeats)
        for t in tasks
    ]


def short_tasks(tasks: list[Task], n: int, max_len: int = 3) -> list[Task]:
    """``n`` tasks whose reference solution has at most ``max_len`` steps (cheap episodes)."""
    found = [t for t in tasks if len(t.solution) <= max_len][:n]
    assert len(found) == n, f"only {len(found)} built-in tasks have <= {max_len} steps"
    return found
