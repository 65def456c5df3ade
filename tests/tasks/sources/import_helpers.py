"""Helpers shared by the importer tests (a plain module: conftest files are not importable)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from webdojo.cli import app
from webdojo.tasks.schema import Task
from webdojo.tasks.sources import ImportReport, import_tasks
from webdojo.tasks.task_file import iter_tasks


def run_import(
    tmp_path: Path, *sources: Path | str, **options: Any
) -> tuple[ImportReport, list[Task]]:
    out = tmp_path / "imported.jsonl"
    report = import_tasks([str(s) for s in sources], out, **options)
    return report, list(iter_tasks(out))


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["tasks", "import", *map(str, args)])


def last_json(result: Result) -> dict[str, Any]:
    return json.loads(result.stdout.strip().splitlines()[-1])


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
