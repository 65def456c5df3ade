"""Task files and site directories: valid ones load, bad ones raise TaskFileError with a location."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webdojo.errors import TaskFileError
from webdojo.tasks.loader import load_spec, load_task_file
from webdojo.tasks.schema import STEP_CAPS, Task

SITE = {
    "name": "mini",
    "title": "Mini",
    "description": "a one-page site",
    "style": "plain",
    "capabilities": ["answer"],
    "pages": ["index.html"],
}


def task_dict(task_id: str = "mini.a", facts: int = 1, **extra: object) -> dict:
    return {
        "id": task_id,
        "website": "mini",
        "instruction": "What is the answer?",
        "start_url": "index.html",
        "rubric": {"fact_groups": [{"id": 1, "facts": [f"fact {i}" for i in range(facts)]}]},
        "verifier": {"checks": [{"kind": "answer", "value": "42"}]},
        "solution": [{"type": "stop", "answer": "42"}],
        **extra,
    }


def write_site(root: Path, tasks: list[dict], name: str = "mini") -> Path:
    site = root / name
    site.mkdir(parents=True)
    (site / "site.json").write_text(json.dumps(SITE | {"name": name}))
    (site / "index.html").write_text("<p>42</p>")
    (site / "tasks.json").write_text(json.dumps([t | {"website": name} for t in tasks]))
    return site


def test_difficulty_is_the_number_of_facts_and_sets_the_step_cap() -> None:
    for facts, cap in [(1, 10), (3, 10), (4, 20), (6, 20), (7, 30), (10, 30)]:
        task = Task.model_validate(task_dict(facts=facts))
        assert task.difficulty == facts
        assert task.max_steps == cap == STEP_CAPS[task.level]
    with pytest.raises(ValueError, match="difficulty 2 != 1 facts"):
        Task.model_validate(task_dict(difficulty=2))
    with pytest.raises(ValueError, match="51 facts"):
        Task.model_validate(task_dict(facts=51))


def test_spec_forms(tmp_path: Path) -> None:
    write_site(tmp_path, [task_dict("mini.a"), task_dict("mini.b")])
    write_site(tmp_path, [task_dict("other.a")], name="other")
    assert len(load_spec(str(tmp_path)).tasks) == 3
    only = load_spec(f"{tmp_path}:other")
    assert [t.id for t in only.tasks] == ["other.a"]
    assert set(only.sites) == {"other"}
    single = load_spec(str(tmp_path / "mini"))
    assert set(single.sites) == {"mini"}
    with pytest.raises(TaskFileError, match="no such site"):
        load_spec(f"{tmp_path}:nosuch")


def test_builtin_set_loads_and_is_large_enough() -> None:
    builtin = load_spec("builtin")
    assert len(builtin.tasks) >= 40
    assert len(builtin.sites) >= 6
    levels = {t.level for t in builtin.tasks}
    assert levels == {"easy", "medium", "hard"}
    for task in builtin.tasks:
        assert len(task.solution) <= task.max_steps, task.id
        assert task.wrong_solutions, f"{task.id} has no wrong solution"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "invalid JSON"),
        ('{"id": 1}', "expected a JSON list"),
        (json.dumps([task_dict(extra_field=1)]), "extra_field"),
        (json.dumps([task_dict(id="bad id!")]), "id"),
        (json.dumps([task_dict(verifier={"checks": []})]), "verifier.checks"),
        (json.dumps([task_dict(verifier={"checks": [{"kind": "magic"}]})]), "verifier.checks"),
        (json.dumps([task_dict(solution=[{"type": "click", "target": {}}])]), "target"),
    ],
)
def test_bad_task_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(content)
    with pytest.raises(TaskFileError, match=message) as info:
        load_task_file(path)
    assert info.value.code == "bad_task_file"
    assert str(path) in str(info.value)


def test_jsonl_files_and_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps(task_dict("mini.a")) + "\n\n" + json.dumps(task_dict("mini.b")) + "\n"
    )
    assert [t.id for t in load_task_file(path)] == ["mini.a", "mini.b"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(task_dict()) + "\n{oops\n")
    with pytest.raises(TaskFileError, match=r"bad.jsonl:2"):
        load_task_file(bad)
    with pytest.raises(TaskFileError, match="duplicate task id"):
        load_spec(f"{path},{path}")


def test_site_directory_errors(tmp_path: Path) -> None:
    site = write_site(tmp_path, [task_dict()])
    (site / "site.json").write_text(json.dumps(SITE | {"name": "renamed"}))
    with pytest.raises(TaskFileError, match="directory name"):
        load_spec(str(site))
    with pytest.raises(TaskFileError, match="no such file"):
        load_spec(str(tmp_path / "missing"))
    unsolved = write_site(tmp_path / "unsolved", [task_dict(solution=[])])
    with pytest.raises(TaskFileError, match=r"mini.a.*a verifier and a reference solution"):
        load_spec(str(unsolved))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TaskFileError, match="no site directories"):
        load_spec(str(empty))
