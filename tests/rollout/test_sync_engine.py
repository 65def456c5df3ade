"""The sync baseline advances a batch in lock-step and starts the next batch only at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from rollout_helpers import Log, RecordingEnv, RecordingPolicy, short_tasks, specs_for

from webdojo.policies import ScriptedPolicy
from webdojo.rollout.sync_engine import SyncConfig, SyncEngine
from webdojo.store.run_store import RunStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _tasks_of_different_lengths(tasks, n):
    """``n`` tasks whose solutions have different lengths, so that members finish apart."""
    by_len = {}
    for task in tasks:
        if len(task.solution) <= 6:
            by_len.setdefault(len(task.solution), task)
    assert len(by_len) >= n
    return [by_len[k] for k in sorted(by_len)[:n]]


async def test_a_batch_advances_in_lock_step(env, builtin, tmp_path: Path) -> None:
    tasks = _tasks_of_different_lengths(builtin.tasks, 3)
    log = Log()
    barriers: list[tuple[int, int]] = []
    policy = RecordingPolicy(ScriptedPolicy(), log, delay_s=0.01)
    with RunStore(tmp_path) as store:
        engine = SyncEngine(
            RecordingEnv(env, log),
            policy,
            store,
            SyncConfig(batch_size=3, env_calls=2),
            on_barrier=lambda b, k: barriers.append((b, k)),
        )
        records = await engine.run(specs_for(tasks))
    assert all(r.success is True for r in records)
    longest = max(len(t.solution) for t in tasks)
    assert barriers == [(0, k) for k in range(longest)]
    for k in range(longest - 1):
        # every env step k ends before any policy call or env step of step k + 1 starts
        last_end = max(log.positions("step_end", k))
        assert last_end < min(log.positions("act", k + 1))
        assert last_end < min(log.positions("step_start", k + 1))
        # and every policy call of step k is answered before any env step k starts
        assert max(log.positions("act", k)) < min(log.positions("step_start", k))
    assert policy.calls.peak == 3  # the batch's calls go out together
    assert engine.stats().env.peak <= 2


async def test_the_next_batch_waits_for_the_whole_batch(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 4)
    log = Log()
    recording = RecordingEnv(env, log)
    with RunStore(tmp_path) as store:
        engine = SyncEngine(recording, ScriptedPolicy(), store, SyncConfig(batch_size=2))
        records = await engine.run(specs_for(tasks))
    assert len(records) == 4 and all(r.success is True for r in records)
    opens = [i for i, (e, _, _) in enumerate(log.events) if e == "open"]
    closes = [(i, s) for i, (e, s, _) in enumerate(log.events) if e == "close"]
    first_batch_closed = max(i for i, s in closes if s in (0, 1))
    assert opens[2] > first_batch_closed and opens[3] > first_batch_closed
    assert recording.sessions.peak <= 2


async def test_a_faulty_member_leaves_the_batch(env, builtin, tmp_path: Path) -> None:
    tasks = short_tasks(builtin.tasks, 3)
    policy = RecordingPolicy(ScriptedPolicy(), fail_tasks=frozenset({tasks[0].id}))
    with RunStore(tmp_path) as store:
        records = await SyncEngine(env, policy, store, SyncConfig(batch_size=3)).run(
            specs_for(tasks)
        )
    by_task = {r.task_id: r for r in records}
    assert by_task[tasks[0].id].fault == "infra" and by_task[tasks[0].id].reward is None
    assert all(by_task[t.id].success is True for t in tasks[1:])
