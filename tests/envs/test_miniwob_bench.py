"""`webdojo bench miniwob`: every episode lands in its task's row of the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.tasks.loader import TaskSet

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_bench_counts_each_episode_in_its_task_row(miniwob: TaskSet, tmp_path: Path) -> None:
    table = tmp_path / "table.md"
    result = last_json(webdojo("bench", "miniwob", "--tasks", "miniwob:click-test,focus-text",
                               "--episodes", "2", "--policy", "scripted", "--markdown", table,
                               "--json"))  # fmt: skip
    assert result["success"] == 1.0 and result["tasks"] == 2
    assert {r["task"]: r["episodes"] for r in result["rows"]} == {"click-test": 2, "focus-text": 2}
    assert "| `click-test` | 2 | 100% |" in table.read_text()
