"""A task file names its tasks' local sites without holding them: the loader gives each task
its site (built in, MiniWoB++, or a sites directory of the spec), so a file exported from the
built-in tasks runs exactly as ``--tasks builtin`` does; a site found nowhere fails at load."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_loader import task_dict, write_site

from webdojo.errors import MissingDependency, TaskFileError
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.tasks.loader import builtin_root, load_spec
from webdojo.tasks.miniwob import miniwob_task
from webdojo.tasks.schema import Task
from webdojo.tasks.sources.importer import import_tasks
from webdojo.tasks.task_file import write_tasks


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``webdojo tasks import builtin --out all.jsonl``."""
    out = tmp_path_factory.mktemp("export") / "all.jsonl"
    import_tasks(["builtin"], out)
    return out


def head(source: Path, n: int, out: Path) -> Path:
    """``head -n`` of a task file."""
    out.write_text("".join(source.read_text(encoding="utf-8").splitlines(True)[:n]))
    return out


def test_a_file_of_builtin_tasks_gets_their_builtin_sites(exported: Path, tmp_path: Path) -> None:
    four = load_spec(str(head(exported, 4, tmp_path / "four.jsonl")))
    sites = {t.website for t in four.tasks}
    assert len(four.tasks) == 4 and set(four.sites) == sites
    assert all(four.sites[s].path == (builtin_root() / s).resolve() for s in sites)
    whole = load_spec(str(exported))
    assert whole.sites == load_spec("builtin").sites  # the same sites as the built-in set


def test_a_sites_directory_in_the_spec_wins_over_the_builtin_site(tmp_path: Path) -> None:
    write_site(tmp_path / "mine", [task_dict("shop.mine")], name="shop")
    tasks = tmp_path / "tasks.jsonl"
    write_tasks(tasks, [Task.model_validate(task_dict("shop.other") | {"website": "shop"})])
    loaded = load_spec(f"{tmp_path / 'mine'},{tasks}")
    assert loaded.sites["shop"].path == (tmp_path / "mine" / "shop").resolve()
    assert set(loaded.sites) == {"shop"}


def test_remote_tasks_need_no_site(tmp_path: Path) -> None:
    remote = [
        Task(id="r.url", instruction="Look.", website="example.com", start_url="https://x.org/"),
        Task(id="r.none", instruction="Search the web."),
    ]
    path = tmp_path / "remote.jsonl"
    write_tasks(path, remote)
    assert load_spec(str(path)).sites == {}


def test_an_unknown_local_site_fails_at_load(tmp_path: Path) -> None:
    path = tmp_path / "foo.json"
    path.write_text(json.dumps([task_dict("foo.a") | {"website": "foo"}]))
    with pytest.raises(TaskFileError) as info:
        load_spec(str(path))
    assert info.value.code == "bad_task_file"
    assert "task 'foo.a' runs on local site 'foo'" in info.value.message
    assert "add its sites directory to --tasks" in info.value.message
    assert info.value.details == {"task": "foo.a", "site": "foo"}


def test_a_file_of_miniwob_tasks_gets_the_miniwob_site(tmp_path: Path) -> None:
    try:
        given = load_spec("miniwob:click-test")
    except MissingDependency as exc:
        pytest.skip(exc.message)
    path = tmp_path / "miniwob.jsonl"
    write_tasks(path, [miniwob_task("click-test")])
    site = load_spec(str(path)).sites["miniwob"]
    assert site.path == given.sites["miniwob"].path and site.inject  # served with its script


@pytest.mark.browser
def test_a_scripted_run_of_a_task_file_of_builtin_tasks_succeeds(
    exported: Path, tmp_path: Path
) -> None:
    """The issue's reproduction: ``head -4 all.jsonl``, run scripted: 4 of 4, not 0 of 4."""
    four = head(exported, 4, tmp_path / "four.jsonl")
    config = RunConfig(tasks=str(four), out=str(tmp_path / "run"))
    records = asyncio.run(run_job(config, load_spec(str(four)), make_policy("scripted")))
    assert len(records) == 4
    assert all(r.success and r.fault is None for r in records), [r.error for r in records]
