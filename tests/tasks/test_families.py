"""Task families: every family is large, its instances distinct and drawn by seed, and the
instances sampled from across each family pass their reference solution and fail every wrong
one in real Chromium (``check_sites``, what ``webdojo sites check family:...`` runs)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.checks.sites import CHECK_CONCURRENCY, TaskResult, check_task
from webdojo.environment.make import default_spec
from webdojo.errors import TaskFileError, UnknownTask
from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.store.run_store import RunStore
from webdojo.tasks.families.registry import families
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task

MIN_INSTANCES = 1000


def test_every_family_has_a_thousand_distinct_instances() -> None:
    assert len(families()) >= 1
    for family in families().values():
        assert family.size >= MIN_INSTANCES, family.name
        seeds = range(0, family.size, max(1, family.size // 500))
        assert len({repr(family.params(s)) for s in seeds}) == len(seeds), family.name
        texts = {family.instance(s).instruction for s in seeds}
        assert len(texts) == len(seeds), f"{family.name}: instances that read the same"


def test_seeds_pick_a_fixed_permutation_of_the_instances() -> None:
    for family in families().values():
        assert family.params(7) == family.params(7)  # the same seed is the same instance
        indexes = sorted(family.index_of(s) for s in range(family.size))
        assert indexes == list(range(family.size)), family.name
        # a short range of seeds is a sample of the whole: every parameter list shows variety
        first = [family.params(s) for s in range(50)]
        for axis, values in enumerate(zip(*first, strict=True)):
            distinct = len({repr(v) for v in values})
            assert distinct >= min(3, len(family.axes[axis])), (family.name, axis)
    family = next(iter(families().values()))
    task = family.instance(3)
    assert task.id == f"family.{family.name}.3" and f"family:{family.name}" in task.tags
    assert task.meta["seed"] == 3 and task.verifier is not None and task.wrong_solutions


@pytest.mark.parametrize(
    "name", ["admin-user-edit", "admin-settings", "login-preferences", "forms-subscribe"]
)
def test_a_reference_solution_sets_every_value_its_objective_names(name: str) -> None:
    """Even a value the page already shows: a model cloned from demonstrations that skipped
    those no-op choices (run FG) changed such a select to another value."""
    family = families()[name]
    kinds = {
        tuple(step.type for step in task.solution) for task in map(family.instance, range(300))
    }
    assert len(kinds) == 1, kinds  # the same steps on every instance; only the values differ


def test_a_family_spec_selects_a_seed_range() -> None:
    name = next(iter(families()))
    tasks = load_spec(f"family:{name}:5@40").tasks
    assert [t.id for t in tasks] == [f"family.{name}.{s}" for s in range(40, 45)]
    assert len(load_spec(f"family:{name}").tasks) == 100
    both = load_spec(f"family:{name}:3@0,family:{name}:3@3").tasks
    assert len({t.id for t in both}) == 6  # disjoint ranges: disjoint instances
    assert default_spec(f"family.{name}.12") == f"family:{name}:1@12"


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("family:no-such-family", UnknownTask),
        ("family:shop-cart-pai", UnknownTask),  # the close names are offered
        ("family:shop-cart-pair:0", TaskFileError),
        ("family:shop-cart-pair:10@20339", TaskFileError),  # past the last seed
        ("family:Shop!", TaskFileError),
    ],
)
def test_bad_family_specs_are_clear_errors(spec: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        load_spec(spec)
    if spec == "family:shop-cart-pai":
        assert "shop-cart-pair" in str(caught.value)


def test_tasks_families_lists_them_as_json() -> None:
    result = last_json(webdojo("tasks", "families", "--json"))
    rows = {row["name"]: row for row in result["families"]}
    assert set(rows) == set(families())
    for name, row in rows.items():
        assert row["instances"] == families()[name].size and row["example"], name
        assert json.dumps(row)  # plain JSON values


@pytest.mark.browser
@pytest.mark.slow
async def test_sampled_instances_pass_their_reference_and_fail_their_wrong_solutions(
    tmp_path: Path,
) -> None:
    """The last instance of every family (its first ones are what `sites check` examples and
    the loop tests run), replayed as `webdojo sites check` replays a task."""
    spec = ",".join(f"family:{f.name}:1@{f.size - 1}" for f in families().values())
    task_set = load_spec(spec)
    with SiteServer(task_set.sites) as server, RunStore(tmp_path) as store:
        env = InProcessEnv(server)
        limiter = asyncio.Semaphore(CHECK_CONCURRENCY)

        async def check(task: Task) -> TaskResult:
            async with limiter:
                return await check_task(env, store, task)

        try:
            results = await asyncio.gather(*(check(t) for t in task_set.tasks))
        finally:
            await env.aclose()
    problems = [f"{r.task_id}: {r.problems}" for r in results if not r.ok]
    assert not problems, "\n".join(problems)
    assert len(results) == len(families())
    assert all(r.reference_passed and r.wrong_rejected and all(r.wrong_rejected) for r in results)
