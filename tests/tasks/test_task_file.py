"""Task files stream in and are written atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from webdojo.errors import TaskFileError
from webdojo.tasks.loader import load_spec
from webdojo.tasks.task_file import bulk, iter_tasks, write_tasks


def test_write_then_stream_back(tmp_path: Path) -> None:
    tasks = load_spec("builtin").tasks
    path = tmp_path / "out" / "tasks.jsonl"
    with bulk():
        assert write_tasks(path, tasks) == len(tasks)
        assert list(iter_tasks(path)) == tasks
    assert [p.name for p in path.parent.iterdir()] == ["tasks.jsonl"]  # no temporary left


def test_a_bad_line_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    good = load_spec("builtin").tasks[0].model_dump_json()
    bad = good.replace('"instruction"', '"instructions"')
    path.write_text(f"{good}\n\n{bad}\n")
    with pytest.raises(TaskFileError, match=r"tasks.jsonl:3: instruction: Field required"):
        list(iter_tasks(path))
    path.write_bytes(b"\xff\xfe{}\n")
    with pytest.raises(TaskFileError, match="not UTF-8"):
        list(iter_tasks(path))


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text("old\n")

    def broken():  # type: ignore[no-untyped-def]
        yield load_spec("builtin").tasks[0]
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        write_tasks(path, broken())
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tasks.jsonl"]
