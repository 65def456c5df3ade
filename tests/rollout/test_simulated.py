"""The simulated VLM policy: seeded, WebGym-like horizons and mix, real verified episodes."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from pathlib import Path

import pytest

from webdojo.bench.simulated import (
    HORIZON_MEANS,
    HorizonModel,
    LatencyModel,
    SimulatedVLMPolicy,
    make_plan,
    sample_workload,
)
from webdojo.rollout.engine import AsyncEngine, EngineConfig
from webdojo.store.run_store import RunStore
from webdojo.tasks.schema import STEP_CAPS


def test_plans_and_latencies_are_reproducible(builtin) -> None:
    specs = sample_workload(builtin.tasks, 50, seed=7)
    again = sample_workload(builtin.tasks, 50, seed=7)
    assert [s.key for s in specs] == [s.key for s in again]
    a, b, c = SimulatedVLMPolicy(seed=1), SimulatedVLMPolicy(seed=1), SimulatedVLMPolicy(seed=2)
    assert [a.plan(s.task) for s in specs] == [b.plan(s.task) for s in specs]
    assert [a.call_latency(s.task, 3) for s in specs] == [b.call_latency(s.task, 3) for s in specs]
    assert [a.plan(s.task) for s in specs] != [c.plan(s.task) for s in specs]
    assert [s.key for s in sample_workload(builtin.tasks, 50, seed=8)] != [s.key for s in specs]


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_horizon_means_match_webgym(level: str) -> None:
    model, cap, rng = HorizonModel(), STEP_CAPS[level], random.Random(0)
    draws = [model.sample(level, cap, rng) for _ in range(20_000)]
    assert abs(statistics.mean(draws) - HORIZON_MEANS[level]) < 0.15
    assert abs(model.mean(level, cap) - HORIZON_MEANS[level]) < 0.01
    assert min(draws) >= 1 and max(draws) <= cap
    assert statistics.median(draws) < statistics.mean(draws) or level == "easy"  # right skew


def test_latency_is_heavy_tailed_with_a_median_of_seconds() -> None:
    model, rng = LatencyModel(), random.Random(0)
    draws = sorted(model.sample(rng) for _ in range(20_000))
    median, p99 = draws[10_000], draws[19_800]
    assert 1.0 <= median <= 3.0 and p99 > 3 * median and max(draws) <= model.max_s


def test_workload_follows_the_uniform_mix(builtin) -> None:
    specs = sample_workload(builtin.tasks, 3_100, seed=0)
    assert len({s.key for s in specs}) == len(specs)
    levels = Counter(s.task.level for s in specs)
    assert abs(levels["easy"] / len(specs) - 25 / 31) < 0.03
    assert abs(levels["medium"] / len(specs) - 5 / 31) < 0.03
    assert abs(levels["hard"] / len(specs) - 1 / 31) < 0.015
    assert all(s.max_steps == s.task.max_steps for s in specs)


def test_plans_pad_the_solution_or_give_up(builtin) -> None:
    task = next(t for t in builtin.tasks if len(t.solution) == 5 and t.level == "easy")
    rng = random.Random(0)
    long = make_plan(task, 9, rng)
    assert long.moves.count("solve") == 5 and long.moves[-1] == "solve"
    assert len(long.moves) == 9 and set(long.moves) <= {"solve", "scroll", "hover"}
    assert make_plan(task, 3, rng).moves == ("solve", "solve", "give_up")
    assert make_plan(task, 5, rng).moves == ("solve",) * 5


@pytest.mark.browser
@pytest.mark.slow
async def test_simulated_episodes_are_real_and_verified(env, builtin, tmp_path: Path) -> None:
    specs = sample_workload(builtin.tasks, 6, seed=11)
    policy = SimulatedVLMPolicy(seed=5, latency=LatencyModel(median_s=0.01, sigma=0.3))
    with RunStore(tmp_path) as store:
        records = await AsyncEngine(env, policy, store, EngineConfig(episodes=3)).run(specs)
    assert len(records) == 6 and all(r.fault is None for r in records)
    by_key = {r.key: r for r in records}
    for spec in specs:
        plan, record = policy.plan(spec.task), by_key[spec.key]
        assert record.steps == plan.horizon
        solved = plan.horizon >= len(spec.task.solution)
        assert record.success is solved, (spec.key, plan, record.verifier)
