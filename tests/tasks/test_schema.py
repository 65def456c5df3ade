"""The one task schema: versions, the taxonomy, difficulty and level, and Arrow-friendly JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import TASK_SCHEMA_VERSION, Task

IMPORTED = {
    "id": "webvoyager:Allrecipes--0",
    "instruction": "Provide a recipe for vegetarian lasagna.",
    "website": "https://www.allrecipes.com/",
    "start_url": "https://www.allrecipes.com/",
    "source": "webvoyager",
    "reference_answers": [{"type": "possible", "answer": "'Vegetarian Four Cheese Lasagna'"}],
    "meta": {"web_name": "Allrecipes", "notice": "review counts are live"},
}


def test_a_version_1_task_is_upgraded_and_a_newer_one_is_refused() -> None:
    old = {"id": "shop.a", "site": "shop", "start": "index.html", "instruction": "Buy it.",
           "rubric": {"fact_groups": [{"id": 1, "facts": ["bought"]}]}}  # fmt: skip
    task = Task.model_validate(old)
    assert (task.website, task.start_url, task.local_site) == ("shop", "index.html", "shop")
    assert (task.schema_version, task.source) == (TASK_SCHEMA_VERSION, "builtin")
    with pytest.raises(ValidationError, match="schema_version 3: written by a newer webdojo"):
        Task.model_validate(IMPORTED | {"schema_version": 3})


def test_domains_are_the_mind2web2_taxonomy_in_canonical_spelling() -> None:
    task = Task.model_validate(IMPORTED | {"subdomain": "food & cooking"})
    assert (task.domain, task.subdomain) == ("Lifestyle & Leisure", "Food & Cooking")
    with pytest.raises(
        ValidationError, match=r"belongs to .Lifestyle & Leisure., not .Entertainment."
    ):
        Task.model_validate(IMPORTED | {"domain": "Entertainment", "subdomain": "Food & Cooking"})
    with pytest.raises(ValidationError, match="unknown domain 'Cooking'"):
        Task.model_validate(IMPORTED | {"domain": "Cooking"})


def test_level_without_a_rubric_and_difficulty_from_one() -> None:
    only_level = Task.model_validate(IMPORTED | {"level": "hard"})
    assert (only_level.difficulty, only_level.level, only_level.max_steps) == (None, "hard", 30)
    unknown = Task.model_validate(IMPORTED)
    assert (unknown.level, unknown.max_steps, unknown.local_site) == (None, 20, None)
    assert Task.model_validate(IMPORTED | {"difficulty": 5, "step_cap": 7}).max_steps == 7
    with pytest.raises(ValidationError, match="level 'easy' != 'medium'"):
        Task.model_validate(IMPORTED | {"difficulty": 5, "level": "easy"})


def test_free_form_parts_are_json_text_on_disk_and_objects_in_python() -> None:
    task = Task.model_validate(IMPORTED)
    line = task.model_dump(mode="json")
    assert isinstance(line["meta"], str) and json.loads(line["meta"])["web_name"] == "Allrecipes"
    assert set(line) == set(Task.model_fields)  # every field on every line
    assert Task.model_validate(line) == task
    assert Task.model_validate_json(task.model_dump_json()) == task


def test_builtin_and_imported_tasks_round_trip_through_hugging_face(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    tasks = [*load_spec("builtin").tasks, Task.model_validate(IMPORTED)]
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    rows = datasets.load_dataset("json", data_files=str(path), split="train")
    assert [Task.model_validate(row) for row in rows] == tasks
