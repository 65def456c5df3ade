"""Episode planning: ``limit`` cuts tasks, ``repeats`` plans K episodes of each (pass@k), every
task's repeat 0 comes first, and each record stores the repeat it ran as."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from webdojo.policies import make_policy
from webdojo.rollout.episode import episode_seed
from webdojo.rollout.run import RunConfig, plan_episodes, run_job
from webdojo.store.run_store import EPISODES
from webdojo.tasks.loader import TaskSet


def test_limit_cuts_tasks_and_repeats_each(builtin: TaskSet) -> None:
    specs = plan_episodes(builtin, RunConfig(limit=4, repeats=2, seed=7))
    first = [t.id for t in builtin.tasks[:4]]
    assert len(specs) == 8
    assert {s.task.id for s in specs} == set(first)
    assert [(s.task.id, s.repeat) for s in specs] == [(t, r) for r in (0, 1) for t in first]
    assert [s.key for s in specs] == [f"{s.task.id}#{s.repeat}" for s in specs]
    assert all(s.seed == episode_seed(7, s.key) for s in specs)
    assert len({s.seed for s in specs}) == 8  # each repeat of a task is seeded apart


def test_no_limit_plans_every_task_repeats_times(builtin: TaskSet) -> None:
    specs = plan_episodes(builtin, RunConfig(repeats=3))
    assert len(specs) == 3 * len(builtin.tasks)
    # breadth first: a run cut off after len(tasks) episodes has tried every task once
    assert {s.task.id for s in specs[: len(builtin.tasks)]} == {t.id for t in builtin.tasks}
    assert all(s.repeat == i // len(builtin.tasks) for i, s in enumerate(specs))


def test_a_limit_over_the_set_plans_the_whole_set(builtin: TaskSet) -> None:
    specs = plan_episodes(builtin, RunConfig(limit=10_000))
    assert [s.task.id for s in specs] == [t.id for t in builtin.tasks]
    assert {s.repeat for s in specs} == {0}


@pytest.mark.browser
def test_a_run_stores_each_episodes_repeat(builtin: TaskSet, tmp_path: Path) -> None:
    login = TaskSet(tasks=[t for t in builtin.tasks if t.website == "login"], sites=builtin.sites)
    config = RunConfig(tasks="builtin:login", limit=1, repeats=2, out=str(tmp_path))
    records = asyncio.run(run_job(config, login, make_policy("scripted")))
    task = login.tasks[0].id
    assert sorted((r.key, r.repeat) for r in records) == [(f"{task}#0", 0), (f"{task}#1", 1)]
    assert all(r.success for r in records)
    stored = [json.loads(line) for line in (tmp_path / EPISODES).read_text().splitlines()]
    assert sorted(line["repeat"] for line in stored) == [0, 1]
