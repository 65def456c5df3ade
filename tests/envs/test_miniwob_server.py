"""MiniWoB++ through `webdojo serve`, as users run it at scale: the episode's seed travels in
the create request, the page's own end of episode ends it on the server (outcome ``done``),
and the reward comes from the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.server.child_process import ServerProcess
from webdojo.tasks.loader import TaskSet

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TASKS = "miniwob:click-test,click-button,enter-text"


def test_scripted_solves_miniwob_tasks_through_the_server(miniwob: TaskSet, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ServerProcess(["--workers", "0", "--tasks", TASKS]) as server:
        summary = last_json(webdojo("run", "--tasks", TASKS, "--server", server.url,
                                    "--repeats", "2", "--out", out, "--json"))  # fmt: skip
    assert summary["episodes"] == 6 and summary["success_rate"] == 1.0, summary
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert {e["outcome"] for e in episodes} == {"done"}
    results = [json.loads(e["final_state"]["storage"])["webdojo.miniwob"] for e in episodes]
    results = [json.loads(r) if isinstance(r, str) else r for r in results]
    assert all(r["success"] and r["raw_reward"] > 0 for r in results)  # the page's own reward
    assert len({r["seed"] for r in results}) == 6  # each repeat drew its own instance
