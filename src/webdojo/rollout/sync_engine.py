"""The synchronous baseline: a fixed batch advances in lock-step (WebGym §4.1's "naive" system).

A batch of ``batch_size`` episodes starts together. At each step:

1. every running member's policy call is sent at once, as one batched model call; the step
   goes on only when the slowest answer is back (a batched VLM request returns with its
   longest generation);
2. then every member's env step is sent at once (bounded by ``env_calls``, like the async
   engine's), and the batch waits for the slowest again.

A member that stops early keeps its slot, idle, until the whole batch is done; only then does
the next batch start. Faster sessions sitting idle while slow ones catch up, and CPU work
arriving in bursts, are exactly what the async engine removes, and this engine exists to
measure that against it on the same workload.

Faults stay per member: a member whose operation raises is recorded as a fault and leaves the
batch; the others go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from webdojo.history import Decision
from webdojo.policies.base import Policy
from webdojo.rollout.engine_core import EngineCore, EpisodeHook, StartHook
from webdojo.rollout.env_client import EnvClient
from webdojo.rollout.episode import EpisodeRun, EpisodeSpec, EpisodeState
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import RunStore

BarrierHook = Callable[[int, int], None]  # (batch index, step index) after a step's env burst


@dataclass(frozen=True)
class SyncConfig:
    batch_size: int = 4  # episodes per batch; all of them advance one step at a time
    env_calls: int | None = None  # concurrent env operations within a step's burst

    def __post_init__(self) -> None:
        if self.batch_size < 1 or (self.env_calls is not None and self.env_calls < 1):
            raise ValueError("SyncConfig.batch_size and env_calls must be >= 1")


class SyncEngine(EngineCore):
    """Runs episodes batch after batch, each batch in lock-step."""

    def __init__(
        self,
        env: EnvClient,
        policy: Policy,
        store: RunStore,
        config: SyncConfig | None = None,
        *,
        on_episode: EpisodeHook | None = None,
        on_start: StartHook | None = None,
        on_barrier: BarrierHook | None = None,
    ) -> None:
        self.config = config or SyncConfig()
        super().__init__(
            env,
            policy,
            store,
            policy_calls=None,  # never limited: a batch's calls are one batched request
            env_calls=self.config.env_calls,
            on_episode=on_episode,
            on_start=on_start,
        )
        self.on_barrier = on_barrier

    async def run(self, specs: Sequence[EpisodeSpec]) -> list[EpisodeRecord]:
        todo = self._begin(specs)
        done = 0
        try:
            size = self.config.batch_size
            for index, first in enumerate(range(0, len(todo), size)):
                if self.halted:
                    break
                await self._batch(index, todo[first : first + size])
                done = first + size
        finally:
            records = self._end_run()
        self._raise_if_halted(max(0, len(todo) - done))
        return records

    async def _batch(self, index: int, specs: Sequence[EpisodeSpec]) -> None:
        members = [EpisodeRun(spec, self._policy, self.store) for spec in specs]
        await self._each(members, lambda m: m.start(self._env))
        await self._each([m for m in members if m.state is EpisodeState.OVER], self._finish)
        step = 0
        while running := [m for m in members if m.running]:
            await self._step(running)
            if self.on_barrier is not None:
                self.on_barrier(index, step)
            step += 1

    async def _step(self, running: Sequence[EpisodeRun]) -> None:
        """One lock-step: every policy call (one batched model call), then every env step."""
        decisions: dict[int, Decision] = {}

        async def decide(member: EpisodeRun) -> None:
            decisions[id(member)] = await member.decide()

        await self._each(running, decide)
        decided = [m for m in running if id(m) in decisions]
        await self._each(decided, lambda m: self._apply(m, decisions[id(m)]))

    async def _apply(self, member: EpisodeRun, decision: Decision) -> None:
        await member.apply(decision)
        if not member.running:  # over: verify and record now; its slot then idles
            await self._finish(member)

    async def _finish(self, member: EpisodeRun) -> None:
        self._ended(await member.finish())

    async def _each(
        self, members: Sequence[EpisodeRun], op: Callable[[EpisodeRun], Awaitable[None]]
    ) -> None:
        """Run ``op`` on every member at once and wait for all; a member whose op raises is
        recorded as a fault."""
        results = await asyncio.gather(*(op(m) for m in members), return_exceptions=True)
        for member, result in zip(members, results, strict=True):
            if isinstance(result, Exception):
                self._ended(await member.fail(result))
            elif isinstance(result, BaseException):  # cancellation, KeyboardInterrupt
                raise result
