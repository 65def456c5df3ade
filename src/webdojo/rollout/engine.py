"""The asynchronous rollout engine: no barriers anywhere.

``AsyncEngine`` keeps ``episodes`` episodes in flight. Each advances on its own (policy call,
env step, policy call...) and the moment one ends, its slot takes the next episode of the
plan. Policy calls and env calls pass through two separate limiters (``webdojo.rollout.limits``):

* ``policy_calls`` bounds the requests open at once against the model server;
* ``env_calls`` bounds browser operations at once, which is what a small machine can run.

Episodes in flight are meant to outnumber env slots: while one episode waits seconds for its
model, the others use the browser, so the CPUs stay busy (WebGym §4, Figure 6). This is the
difference from the sync baseline (``webdojo.rollout.sync_engine``), where a batch advances in
lock-step and fast episodes wait for slow ones.

The engine resumes from its store (episodes already finished are skipped, infra-faulted ones
run again), starts the hardest episodes first (``longest_first``), and a fault in one episode
never stops it: the episode's record says what happened.
It works with any ``EnvClient`` (in-process or ``HttpEnv``) and any ``Policy``.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.limits import LimitedEnv, LimitedPolicy, Limiter, LimitStats
from webdojo.store.run_store import RunStore, finished_keys

EpisodeHook = Callable[[dict[str, Any]], None]  # called with each episode record as it ends
StartHook = Callable[[int, int], None]  # (episodes to run, episodes skipped as finished)


@dataclass(frozen=True)
class EngineConfig:
    """How much runs at once. Defaults suit ``webdojo run`` with a local policy."""

    episodes: int = 4  # episodes in flight (slots); a finished one is replaced at once
    policy_calls: int | None = None  # concurrent policy calls; None: one per episode in flight
    env_calls: int | None = None  # concurrent env operations; None: no bound beyond episodes
    # Start episodes with the highest step cap (the hardest) first: a finite run then ends on
    # short episodes instead of waiting for one long episode that happened to start last
    # (longest-processing-time-first scheduling). Ties keep the plan's order.
    longest_first: bool = True

    def __post_init__(self) -> None:
        for name in ("episodes", "policy_calls", "env_calls"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"EngineConfig.{name} must be >= 1, not {value}")


@dataclass(frozen=True)
class EngineStats:
    """What one ``run`` did: its wall time and what went through each limiter."""

    wall_s: float
    episodes: int  # episodes run (not skipped)
    faults: int  # episodes that ended with a fault
    steps: int  # env steps (an unparseable decision's re-observation counts as one)
    policy: LimitStats
    env: LimitStats
    # The steady phase: from the end of the first episode (the start burst of opens is over
    # and slots begin to refill) until the last episode left the queue. Every slot is busy
    # and episodes start at the rate they end, as through most of a long rollout; a short
    # run also has a tail, where slots empty one by one. None when no slot was ever refilled.
    steady_s: float | None = None
    steady_steps: int = 0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def steady_steps_per_s(self) -> float | None:
        return self.steady_steps / self.steady_s if self.steady_s else None


def pending(specs: Sequence[EpisodeSpec], store: RunStore) -> list[EpisodeSpec]:
    """The specs a resumed run still has to do: not finished in ``store`` (infra-faulted
    episodes were never scored, so they count as not finished)."""
    done = finished_keys(store.root)
    return [s for s in specs if s.key not in done]


class AsyncEngine:
    """Runs episodes with ``config.episodes`` slots. One engine, one ``run`` at a time."""

    def __init__(
        self,
        env: EnvClient,
        policy: Policy,
        store: RunStore,
        config: EngineConfig | None = None,
        *,
        on_episode: EpisodeHook | None = None,
        on_start: StartHook | None = None,
    ) -> None:
        self.config = config or EngineConfig()
        self.store = store
        self.on_episode = on_episode
        self.on_start = on_start
        self.policy_limit = Limiter("policy", self.config.policy_calls)
        self.env_limit = Limiter("env", self.config.env_calls)
        self._policy = LimitedPolicy(policy, self.policy_limit)
        self._env = LimitedEnv(env, self.env_limit)
        self._records: list[dict[str, Any]] = []
        self._wall_s = 0.0
        self._started = 0.0
        self._first_end: float | None = None  # when the first episode ended
        self._drained: float | None = None  # when the last episode left the queue

    async def run(self, specs: Sequence[EpisodeSpec]) -> list[dict[str, Any]]:
        """Run every spec not already finished in the store; return the new records in the
        order the episodes ended."""
        todo = pending(specs, self.store)
        if self.on_start is not None:
            self.on_start(len(todo), len(specs) - len(todo))
        if self.config.longest_first:
            todo = sorted(todo, key=lambda spec: -spec.max_steps)
        queue = deque(todo)
        self._records, self._first_end, self._drained = [], None, None
        self._started = time.perf_counter()
        slots = min(self.config.episodes, len(todo))
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(slots):
                    group.create_task(self._slot(queue))
        finally:
            self._wall_s = time.perf_counter() - self._started
        return list(self._records)

    async def _slot(self, queue: deque[EpisodeSpec]) -> None:
        """One slot: take the next episode as soon as the last one ends."""
        while queue:
            spec = queue.popleft()
            if not queue and self._drained is None:
                self._drained = time.perf_counter()
            record = await run_episode(self._env, self._policy, spec, self.store)
            if self._first_end is None:
                self._first_end = time.perf_counter()
            self._records.append(record)
            if self.on_episode is not None:
                self.on_episode(record)

    def stats(self) -> EngineStats:
        env = self.env_limit.stats
        return EngineStats(
            wall_s=self._wall_s,
            episodes=len(self._records),
            faults=sum(1 for r in self._records if r["fault"] is not None),
            steps=env.count("step") + env.count("observe"),
            policy=self.policy_limit.stats,
            env=env,
            **self._steady(env),
        )

    def _steady(self, env: LimitStats) -> dict[str, Any]:
        start, end = self._first_end, self._drained
        if start is None or end is None or end <= start:
            return {}
        steps = sum(env.count_between(op, start, end) for op in ("step", "observe"))
        return {"steady_s": end - start, "steady_steps": steps}
