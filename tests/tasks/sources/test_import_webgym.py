"""WebGym's Hugging Face format, on fixtures written here in that exact format (JSONL and
parquet: the dataset is not stored in ../shared/data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from import_helpers import run_import

from webdojo.errors import TaskFileError

GROUPS = [
    {
        "id": 1,
        "description": "the search",
        "facts": ["searched flights Boston to Denver", "on 4 March"],
    },
    {"id": 2, "description": "the answer", "facts": ["the cheapest fare is reported"]},
]


def rows() -> list[dict[str, Any]]:
    return [
        {
            "task_id": "task_0001", "benchmark_name": "mind2web-live",
            "task_name": "Find the cheapest flight from Boston to Denver on 4 March.",
            "domain": "Travel & Transportation", "subdomain": "Travel & Accommodation",
            "website": "https://www.kayak.com/", "difficulty": 3,
            "evaluator_reference": GROUPS, "reference_answer": "",
        },
        {
            "task_id": "task_0002", "benchmark_name": "synthetic",
            "task_name": "How many moons does Mars have?",
            "domain": "science & research", "subdomain": "technology & science",
            "website": "en.wikipedia.org", "difficulty": "1",
            "evaluator_reference": json.dumps([{"id": 1, "description": "", "facts": ["two moons"]}]),
            "reference_answer": "2",
        },
    ]  # fmt: skip


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_jsonl_rows_become_tasks_with_rubrics(tmp_path: Path) -> None:
    report, tasks = run_import(tmp_path, write_jsonl(tmp_path / "train.jsonl", rows()))
    assert report.formats == "webgym" and len(tasks) == 2
    flight, mars = tasks
    assert flight.id == "webgym:task_0001" and flight.source == "webgym"
    assert flight.rubric is not None and flight.rubric.n_facts() == 3
    assert flight.difficulty == 3 and flight.level == "easy" and flight.max_steps == 10
    assert flight.domain == "Travel & Transportation" and flight.reference_answers == []
    assert flight.meta == {"task_id": "task_0001", "benchmark_name": "mind2web-live"}
    # JSON-text fact groups, a difficulty given as text, labels in any case, a bare host
    assert mars.difficulty == 1 and mars.facts() == ["two moons"]
    assert (mars.domain, mars.subdomain) == ("Science & Research", "Technology & Science")
    assert mars.website == "en.wikipedia.org" and mars.start_url == "https://en.wikipedia.org"
    assert [(a.type, a.answer) for a in mars.reference_answers] == [("golden", "2")]


def test_parquet_as_hugging_face_ships_it_gives_the_same_tasks(tmp_path: Path) -> None:
    _, from_jsonl = run_import(tmp_path, write_jsonl(tmp_path / "train.jsonl", rows()))
    # Arrow cannot hold a column that is a list in one row and text in the next: as JSON text
    text_rows = [{**r, "evaluator_reference": json.dumps(r["evaluator_reference"])
                  if isinstance(r["evaluator_reference"], list) else r["evaluator_reference"],
                  "difficulty": int(r["difficulty"])} for r in rows()]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(text_rows), tmp_path / "train-00000-of-00001.parquet")
    report, from_parquet = run_import(tmp_path, tmp_path / "train-00000-of-00001.parquet")
    assert report.formats == "webgym" and from_parquet == from_jsonl
    # and as a list of structs, which is what Arrow infers from the fact groups themselves
    struct_rows = [{**r, "evaluator_reference": GROUPS, "difficulty": 3} for r in text_rows]
    pq.write_table(pa.Table.from_pylist(struct_rows), tmp_path / "structs.parquet")
    _, tasks = run_import(tmp_path, tmp_path / "structs.parquet")
    assert [t.rubric for t in tasks] == [from_jsonl[0].rubric] * 2


def test_definite_answer_and_missing_task_id(tmp_path: Path) -> None:
    row = {k: v for k, v in rows()[1].items() if k not in ("task_id", "reference_answer")}
    row["definite_answer"] = "Two"  # the dataset card's name for the answer
    _, tasks = run_import(tmp_path, write_jsonl(tmp_path / "t.jsonl", [rows()[0], row]))
    assert tasks[1].id == "webgym:1"  # the row number, from 0
    assert [a.answer for a in tasks[1].reference_answers] == ["Two"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"difficulty": 5}, r"t.jsonl:1: \(record\): difficulty 5 != 3 facts in the rubric"),
        ({"subdomain": "Astrology"}, r"t.jsonl:1: subdomain: unknown subdomain 'Astrology'"),
        ({"evaluator_reference": "[{"}, r"t.jsonl:1: evaluator_reference: is text but not JSON"),
        ({"evaluator_reference": [{"id": 1, "facts": []}]},
         r"t.jsonl:1: evaluator_reference \(rubric.fact_groups.0.facts\): List should have at least 1 item"),
        ({"difficulty": "hard"}, r"t.jsonl:1: difficulty: expected an integer, got 'hard' \(wrong type\)"),
        ({"task_name": 7}, r"t.jsonl:1: task_name: expected a string, got an integer \(wrong type\)"),
    ],
)  # fmt: skip
def test_bad_rows_are_named(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{**rows()[0], **change}])
    with pytest.raises(TaskFileError, match=message):
        run_import(tmp_path, path)
