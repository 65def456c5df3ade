"""Concurrency limits that count what passes through them.

The rollout engines bound policy calls and env calls separately. WebGym's point (its §4) is
that a machine can hold many more episodes than it has CPUs: while one episode waits for its
model, the others use the browser. So the number of episodes in flight is set high, and two
``Limiter``s keep the model server and the browsers from being flooded.

``LimitedPolicy`` and ``LimitedEnv`` wrap any ``Policy`` / ``EnvClient`` so that every call goes
through a limiter; the engines and the episode loop never see the difference. The counters
(peak concurrency, service and wait times per operation) are what the tests check and what
the benchmark reports.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.history import Decision, Step
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient, EnvSession
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult


@dataclass
class LimitStats:
    """What went through one limiter. Durations are service times (inside the slot)."""

    name: str
    limit: int | None  # None: unbounded (counted only)
    calls: int = 0
    in_flight: int = 0
    peak: int = 0  # the most calls ever inside at once; never above ``limit``
    wait_s: float = 0.0  # total time spent queueing for a slot
    durations: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    ends: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # perf_counter

    def count(self, op: str) -> int:
        return len(self.durations.get(op, []))

    def count_between(self, op: str, start: float, end: float) -> int:
        """Calls of ``op`` that ended in [start, end] (``time.perf_counter()`` values)."""
        return sum(1 for t in self.ends.get(op, []) if start <= t <= end)


class Limiter:
    """An asyncio semaphore (or none, when ``limit`` is None) with counters."""

    def __init__(self, name: str, limit: int | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"{name} limit must be >= 1 or None, not {limit}")
        self.stats = LimitStats(name=name, limit=limit)
        self._sem = asyncio.Semaphore(limit) if limit is not None else None

    @asynccontextmanager
    async def slot(self, op: str) -> AsyncIterator[None]:
        stats = self.stats
        queued = time.perf_counter()
        if self._sem is not None:
            await self._sem.acquire()
        started = time.perf_counter()
        stats.wait_s += started - queued
        stats.calls += 1
        stats.in_flight += 1
        stats.peak = max(stats.peak, stats.in_flight)
        try:
            yield
        finally:
            stats.in_flight -= 1
            ended = time.perf_counter()
            stats.durations[op].append(ended - started)
            stats.ends[op].append(ended)
            if self._sem is not None:
                self._sem.release()


class LimitedPolicy:
    """A policy whose ``act`` calls share one limiter (one model server's capacity)."""

    def __init__(self, inner: Policy, limiter: Limiter) -> None:
        self.inner = inner
        self.limiter = limiter
        self.name = inner.name

    def observation_options(self) -> ObservationOptions:
        return self.inner.observation_options()

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        async with self.limiter.slot("act"):
            return await self.inner.act(task, observation, history, seed=seed)

    async def aclose(self) -> None:
        await self.inner.aclose()


class LimitedEnv:
    """An env whose every operation (open, step, observe, final state, close) takes a slot:
    they all cost browser CPU."""

    def __init__(self, inner: EnvClient, limiter: Limiter) -> None:
        self.inner = inner
        self.limiter = limiter

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[EnvSession, Observation]:
        async with self.limiter.slot("open"):
            inner, obs = await self.inner.open(task, options, session, seed=seed)
        return _LimitedSession(inner, self.limiter), obs

    async def aclose(self) -> None:
        await self.inner.aclose()


class _LimitedSession:
    def __init__(self, inner: EnvSession, limiter: Limiter) -> None:
        self.inner = inner
        self.limiter = limiter

    async def observe(self, options: ObservationOptions) -> Observation:
        async with self.limiter.slot("observe"):
            return await self.inner.observe(options)

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        async with self.limiter.slot("step"):
            return await self.inner.step(action, options)

    async def final_state(self, answer: str | None) -> FinalState:
        async with self.limiter.slot("final_state"):
            return await self.inner.final_state(answer)

    async def verify(
        self, task: Task, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]:
        async with self.limiter.slot("final_state"):
            return await self.inner.verify(task, answer)

    async def aclose(self) -> None:
        async with self.limiter.slot("close"):
            await self.inner.aclose()
