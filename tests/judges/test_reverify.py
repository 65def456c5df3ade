"""``webdojo verify``: stored rewards checked again from stored final states, no browser."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.judges.reverify import reverify_run
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.run_reader import read_episodes
from webdojo.store.run_store import EPISODES
from webdojo.tasks.loader import load_spec

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reverify") / "run"
    config = RunConfig(tasks="builtin:login", limit=3, out=str(out))
    policy = make_policy("scripted")
    asyncio.run(run_job(config, load_spec(config.tasks), policy))
    return out


def test_every_stored_reward_agrees(scripted_run: Path) -> None:
    report = reverify_run(scripted_run)
    assert (report.checked, report.agree, report.disagree) == (3, 3, [])


def test_a_tampered_reward_disagrees_and_exits_1(scripted_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name in ("config.json", "steps.jsonl", EPISODES):
        (run / name).write_bytes((scripted_run / name).read_bytes())
    key, record = next(iter(read_episodes(run).items()))
    forged = record.model_copy(update={"reward": 0.0, "success": False})
    with open(run / EPISODES, "a", encoding="utf-8") as handle:  # the latest line wins
        handle.write(forged.model_dump_json() + "\n")
    result = CliRunner().invoke(app, ["verify", str(run), "--json"])
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["episodes"] == 3 and summary["agree"] == 2 and summary["disagree"] == [key]


def test_without_a_task_set_it_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["verify", str(tmp_path)])
    assert result.exit_code == 2 and "names no task set" in result.output
