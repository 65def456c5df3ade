"""The async engine: slots refill, limits hold, resume skips finished keys, faults stay local."""

from __future__ import annotations

from pathlib import Path

import pytest
from rollout_helpers import RecordingEnv, RecordingPolicy, short_tasks, specs_for

from webdojo.bench.simulated import LatencyModel, SimulatedVLMPolicy
from webdojo.policies import ScriptedPolicy
from webdojo.rollout.engine import AsyncEngine, EngineConfig
from webdojo.store.run_reader import read_episodes
from webdojo.store.run_store import RunStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_more_episodes_than_slots_all_finish(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 5)
    recording = RecordingEnv(env)
    seen: list[str] = []
    with RunStore(tmp_path) as store:
        engine = AsyncEngine(
            recording,
            ScriptedPolicy(),
            store,
            EngineConfig(episodes=2),
            on_episode=lambda r: seen.append(r.key),
        )
        records = await engine.run(specs_for(tasks))
    assert sorted(seen) == sorted(r.key for r in records) == sorted(f"{t.id}#0" for t in tasks)
    assert all(r.success is True and r.fault is None for r in records), records
    assert recording.sessions.peak <= 2  # slots, refilled: never more episodes at once
    assert recording.sessions.now == 0  # every session closed
    stats = engine.stats()
    assert stats.episodes == 5 and stats.faults == 0
    assert stats.steps == sum(r.steps for r in records)
    assert stats.steady_s is not None and 0 < stats.steady_s < stats.wall_s  # 2 slots refilled
    assert 0 <= stats.steady_steps < stats.steps
    assert set(read_episodes(tmp_path)) == set(seen)


async def test_policy_and_env_limits_hold(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 6)
    recording = RecordingEnv(env)
    policy = RecordingPolicy(
        SimulatedVLMPolicy(seed=3, latency=LatencyModel(median_s=0.05, sigma=0.5))
    )
    with RunStore(tmp_path) as store:
        engine = AsyncEngine(
            recording, policy, store, EngineConfig(episodes=6, policy_calls=2, env_calls=1)
        )
        records = await engine.run(specs_for(tasks))
    assert len(records) == 6 and all(r.fault is None for r in records)
    stats = engine.stats()
    # the engine's own counters and the independent ones inside agree: limits never exceeded
    assert 1 <= policy.calls.peak <= 2 and stats.policy.peak <= 2
    assert recording.calls.peak == 1 and stats.env.peak == 1
    assert stats.policy.calls == sum(r.steps for r in records)
    assert stats.env.count("open") == 6 and stats.env.count("close") == 6


async def test_resume_skips_finished_and_reruns_infra_faults(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 4)
    specs = specs_for(tasks)
    with RunStore(tmp_path) as store:
        # the first run: one episode lost to an infra fault, one never started
        policy = RecordingPolicy(ScriptedPolicy(), fail_tasks=frozenset({tasks[1].id}))
        first = await AsyncEngine(env, policy, store, EngineConfig(episodes=2)).run(specs[:3])
    assert {r.key: r.fault for r in first} == {
        specs[0].key: None,
        specs[1].key: "infra",
        specs[2].key: None,
    }, [r.error for r in first]
    starts: list[tuple[int, int]] = []
    with RunStore(tmp_path) as store:
        engine = AsyncEngine(
            env,
            ScriptedPolicy(),
            store,
            EngineConfig(episodes=2),
            on_start=lambda todo, skipped: starts.append((todo, skipped)),
        )
        second = await engine.run(specs)
    assert starts == [(2, 2)]
    assert sorted(r.key for r in second) == sorted([specs[1].key, specs[3].key])
    latest = read_episodes(tmp_path)
    assert len(latest) == 4
    assert all(r.success is True for r in latest.values()), [r.error for r in second]


async def test_an_infra_fault_ends_only_its_episode(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 4)
    broken = tasks[2].id
    policy = RecordingPolicy(ScriptedPolicy(), fail_tasks=frozenset({broken}))
    with RunStore(tmp_path) as store:
        engine = AsyncEngine(env, policy, store, EngineConfig(episodes=2, env_calls=1))
        records = await engine.run(specs_for(tasks))
    by_task = {r.task_id: r for r in records}
    assert len(by_task) == 4
    fault = by_task.pop(broken)
    assert fault.fault == "infra" and fault.reward is None and fault.success is None
    assert fault.outcome == "fault" and fault.error.code == "model_error"
    assert all(r.success is True and r.fault is None for r in by_task.values())
    assert engine.stats().faults == 1


def test_config_rejects_zero_limits() -> None:
    with pytest.raises(ValueError):
        EngineConfig(episodes=0)
    with pytest.raises(ValueError):
        EngineConfig(env_calls=0)
