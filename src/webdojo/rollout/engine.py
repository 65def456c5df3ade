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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from webdojo.policies.base import Policy
from webdojo.rollout.engine_core import (
    STEP_OPS,
    EngineCore,
    EngineStats,
    EpisodeHook,
    StartHook,
    pending,
)
from webdojo.rollout.env_client import EnvClient
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.rollout.limits import LimitStats
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import RunStore

__all__ = ["AsyncEngine", "EngineConfig", "EngineStats", "EpisodeHook", "StartHook", "pending"]


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
    # Stop starting episodes once this many in a row ended because the env server could not
    # be reached (``ServerDown`` is raised; the rest is left for a resume). None: never stop.
    halt_after: int | None = 3

    def __post_init__(self) -> None:
        for name in ("episodes", "policy_calls", "env_calls"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"EngineConfig.{name} must be >= 1, not {value}")


class AsyncEngine(EngineCore):
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
        super().__init__(
            env,
            policy,
            store,
            policy_calls=self.config.policy_calls,
            env_calls=self.config.env_calls,
            on_episode=on_episode,
            on_start=on_start,
            halt_after=self.config.halt_after,
        )
        self._first_end: float | None = None  # when the first episode ended
        self._drained: float | None = None  # when the last episode left the queue

    async def run(self, specs: Sequence[EpisodeSpec]) -> list[EpisodeRecord]:
        """Run every spec not already finished in the store; return the new records in the
        order the episodes ended."""
        todo = self._begin(specs)
        if self.config.longest_first:
            todo = sorted(todo, key=lambda spec: -spec.max_steps)
        queue = deque(todo)
        self._first_end, self._drained = None, None
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.config.episodes, len(todo))):
                    group.create_task(self._slot(queue))
        finally:
            records = self._end_run()
        self._raise_if_halted(len(queue))
        return records

    async def _slot(self, queue: deque[EpisodeSpec]) -> None:
        """One slot: take the next episode as soon as the last one ends."""
        while queue and not self.halted:
            spec = queue.popleft()
            if not queue and self._drained is None:
                self._drained = time.perf_counter()
            record = await run_episode(self._env, self._policy, spec, self.store)
            if self._first_end is None:
                self._first_end = time.perf_counter()
            self._ended(record)

    def _extra_stats(self, env: LimitStats) -> dict[str, Any]:
        start, end = self._first_end, self._drained
        if start is None or end is None or end <= start:
            return {}
        steps = sum(env.count_between(op, start, end) for op in STEP_OPS)
        return {"steady_s": end - start, "steady_steps": steps}
