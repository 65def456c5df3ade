"""What the async engine and the sync baseline share: limited policy and env, resume from the
store, the episode hooks, the records of one ``run`` and its statistics."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from webdojo.errors import ModelDown, ModelError, ModelTimeout, ServerDown, ServerUnavailable
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient
from webdojo.rollout.episode import EpisodeSpec
from webdojo.rollout.limits import LimitedEnv, LimitedPolicy, Limiter, LimitStats
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_reader import finished_keys
from webdojo.store.run_store import RunStore

EpisodeHook = Callable[[EpisodeRecord], None]  # called with each episode record as it ends
StartHook = Callable[[int, int], None]  # (episodes to run, episodes skipped as finished)


@dataclass(frozen=True)
class EngineStats:
    """What one ``run`` did: its wall time and what went through each limiter."""

    wall_s: float
    episodes: int  # episodes run (not skipped)
    faults: int  # episodes that ended with a fault
    steps: int  # env steps (an unparseable decision's re-observation counts as one)
    policy: LimitStats
    env: LimitStats
    # The steady phase (async engine only): from the end of the first episode (the start
    # burst of opens is over and slots begin to refill) until the last episode left the
    # queue. Every slot is busy and episodes start at the rate they end, as through most of a
    # long rollout; a short run also has a tail, where slots empty one by one. None when no
    # slot was ever refilled.
    steady_s: float | None = None
    steady_steps: int = 0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def steady_steps_per_s(self) -> float | None:
        return self.steady_steps / self.steady_s if self.steady_s else None


def pending(specs: Sequence[EpisodeSpec], store: RunStore) -> list[EpisodeSpec]:
    """The specs a resumed run still has to do: not finished in ``store`` (faulted episodes
    were never scored, so they count as not finished)."""
    done = finished_keys(store.root)
    return [s for s in specs if s.key not in done]


STEP_OPS = ("step", "observe")  # env operations that count as an env step
# Episode errors that say the model endpoint is failing (refused, 5xx, 4xx, timeouts), not that
# one reply was bad: several in a row stop the run (``ModelDown``) instead of faulting the rest.
MODEL_DOWN_CODES = frozenset({ModelError.code, ModelTimeout.code})


class EngineCore:
    """The parts of an engine that do not depend on how episodes are scheduled."""

    def __init__(
        self,
        env: EnvClient,
        policy: Policy,
        store: RunStore,
        *,
        policy_calls: int | None,
        env_calls: int | None,
        on_episode: EpisodeHook | None,
        on_start: StartHook | None,
        halt_after: int | None = 3,
    ) -> None:
        self.store = store
        self.on_episode = on_episode
        self.on_start = on_start
        self.policy_limit = Limiter("policy", policy_calls)
        self.env_limit = Limiter("env", env_calls)
        self._policy = LimitedPolicy(policy, self.policy_limit)
        self._env = LimitedEnv(env, self.env_limit)
        self._records: list[EpisodeRecord] = []
        self._unreachable = 0  # episodes in a row that ended with server_unavailable
        self._model_failed = 0  # episodes in a row that ended with the endpoint failing
        self.halt_after = halt_after
        self._started = 0.0
        self._wall_s = 0.0

    def _begin(self, specs: Sequence[EpisodeSpec]) -> list[EpisodeSpec]:
        """Start a run: what is left to do (announced to ``on_start``); the clock starts."""
        todo = pending(specs, self.store)
        if self.on_start is not None:
            self.on_start(len(todo), len(specs) - len(todo))
        self._records = []
        self._unreachable = 0
        self._model_failed = 0
        self._started = time.perf_counter()
        return todo

    def _end_run(self) -> list[EpisodeRecord]:
        self._wall_s = time.perf_counter() - self._started
        return list(self._records)

    def _ended(self, record: EpisodeRecord) -> None:
        self._records.append(record)
        code = None if record.error is None else record.error.code
        self._unreachable = self._unreachable + 1 if code == ServerUnavailable.code else 0
        self._model_failed = self._model_failed + 1 if code in MODEL_DOWN_CODES else 0
        if self.on_episode is not None:
            self.on_episode(record)

    @property
    def halted(self) -> bool:
        """The env server has been unreachable, or the model endpoint failing, for
        ``halt_after`` episodes in a row: start no more episodes (each would only be recorded
        as one more fault)."""
        worst = max(self._unreachable, self._model_failed)
        return self.halt_after is not None and worst >= self.halt_after

    def _raise_if_halted(self, left: int) -> None:
        if not self.halted:
            return
        if self._unreachable >= self._model_failed:
            raise ServerDown(
                f"the environment server was unreachable for {self._unreachable} episodes in "
                f"a row, so the run stopped early; {left} episode(s) were not started",
                not_started=left,
            )
        raise ModelDown(
            f"the model endpoint failed {self._model_failed} episodes in a row, so the run "
            f"stopped early; {left} episode(s) were not started",
            not_started=left,
        )

    def stats(self) -> EngineStats:
        env = self.env_limit.stats
        return EngineStats(
            wall_s=self._wall_s,
            episodes=len(self._records),
            faults=sum(1 for r in self._records if r.fault is not None),
            steps=sum(env.count(op) for op in STEP_OPS),
            policy=self.policy_limit.stats,
            env=env,
            **self._extra_stats(env),
        )

    def _extra_stats(self, env: LimitStats) -> dict[str, Any]:
        return {}
