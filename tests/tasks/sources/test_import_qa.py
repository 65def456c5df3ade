"""QA sets in verl's parquet layout (fixtures written here, in the layout of Search-R1's NQ /
HotpotQA files and verl's examples); FlashRAG JSONL is tested on the real file elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from import_helpers import run_import

from webdojo.errors import TaskFileError

TEMPLATE = "Answer the question, searching when needed. Question: {q}\n"


def verl_row(index: int, question: str, target: Any, split: str = "test") -> dict[str, Any]:
    return {
        "data_source": "nq",
        "prompt": [{"content": TEMPLATE.format(q=question), "role": "user"}],
        "ability": "fact-reasoning",
        "reward_model": {"ground_truth": target, "style": "rule"},
        "extra_info": {"answer": "", "index": index, "question": question, "split": split},
    }


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_verl_rows_become_qa_tasks(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "test.parquet", [
        verl_row(0, "who wrote hamlet", {"target": ["William Shakespeare", "Shakespeare"]}),
        verl_row(1, "capital of peru", {"target": ["Lima"]}),
    ])  # fmt: skip
    report, tasks = run_import(tmp_path, path)
    assert report.formats == "verl_qa" and [t.id for t in tasks] == [
        "verl_qa:nq/test/0",
        "verl_qa:nq/test/1",
    ]
    hamlet = tasks[0]
    assert hamlet.instruction == "who wrote hamlet" and hamlet.website is None
    assert [(a.type, a.answer) for a in hamlet.reference_answers] == [
        ("golden", "William Shakespeare"), ("golden", "Shakespeare")
    ]  # fmt: skip
    assert hamlet.meta["prompt"][0]["content"].endswith("Question: who wrote hamlet\n")
    assert hamlet.meta["extra_info"]["split"] == "test" and hamlet.meta["data_source"] == "nq"


def test_plain_text_ground_truth_and_question_from_the_prompt(tmp_path: Path) -> None:
    row = verl_row(7, "how many legs has a spider", "8", split="train")
    row["extra_info"] = {"index": 7, "split": "train"}  # no question: the prompt's user message
    _, tasks = run_import(tmp_path, write_parquet(tmp_path / "train.parquet", [row]))
    assert tasks[0].instruction == TEMPLATE.format(q="how many legs has a spider")
    assert [a.answer for a in tasks[0].reference_answers] == ["8"]
    assert tasks[0].id == "verl_qa:nq/train/7"


def test_a_row_without_ground_truth_names_the_field_and_row(tmp_path: Path) -> None:
    rows = [verl_row(0, "q0", "a"), verl_row(1, "q1", None)]
    path = write_parquet(tmp_path / "t.parquet", rows)
    with pytest.raises(
        TaskFileError,
        match=r"t.parquet: row 1: reward_model.ground_truth: required field is missing",
    ):
        run_import(tmp_path, path)
