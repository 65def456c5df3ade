"""The main job through the real CLI: scripted succeeds everywhere, random does much worse,
interrupted runs resume without losing anything, and bad input gets a clear error."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import typer
from cli_process import interruptible, last_json, stop_with_sigint, webdojo

from reference_tasks import one_per_site
from webdojo.cli.app import app
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import EPISODES, STEPS
from webdojo.tasks.loader import load_spec
from webdojo.tasks.task_file import write_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_scripted_default_policy_solves_a_task_of_every_site(tmp_path: Path) -> None:
    """The main job on one task per built-in site, from a task file (that every built-in
    task is solved is the ``core`` suite's test, tests/eval/test_core_suite.py)."""
    tasks = tmp_path / "six.jsonl"
    write_tasks(tasks, one_per_site())
    proc = webdojo("run", "--tasks", str(tasks), "--out", str(tmp_path / "run"), "--json")
    assert "using the scripted policy" in proc.stdout  # the one-line note when no model is set
    summary = last_json(proc)
    assert summary["episodes"] == 6
    assert summary["success_rate"] == 1.0
    assert set(summary["by_site"]) == {"admin", "booking", "forms", "login", "shop", "wiki"}
    assert all(v["success_rate"] == 1.0 for v in summary["by_difficulty"].values())
    assert summary["out"] == str(tmp_path / "run")
    # every line of both files validates against the record models, as written
    episodes = lines_as(tmp_path / "run" / EPISODES, EpisodeRecord)
    steps = lines_as(tmp_path / "run" / STEPS, StepRecord)
    assert len(episodes) == summary["episodes"]
    assert all(e.reward == 1.0 and e.fault is None and e.final_state for e in episodes)
    assert sum(e.steps for e in episodes) == len(steps)
    assert len(list(read_run(tmp_path / "run", strict=True).finished_steps())) == len(steps)
    for step in steps[:20]:
        assert step.screenshot is not None and (tmp_path / "run" / step.screenshot).is_file()
    assert (tmp_path / "run" / "report.html").is_file()
    # every stored reward is confirmed from its stored final state, without a browser
    agreement = last_json(webdojo("verify", str(tmp_path / "run"), "--json"))
    assert agreement["episodes"] == len(episodes) == agreement["agree"]
    assert agreement["disagree"] == []


def test_the_main_job_runs_every_builtin_task_by_default() -> None:
    """What ``make demo`` runs: ``webdojo run`` with no task spec is every built-in task."""
    command = typer.main.get_command(app).commands["run"]
    assert {p.name: p.default for p in command.params}["tasks"] == "builtin"


def lines_as(path: Path, model: type[EpisodeRecord] | type[StepRecord]) -> list:
    """Each line of a JSONL file validated strictly, as stored on disk."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [model.model_validate_json(line, context={"stored": True}) for line in lines]


def test_random_policy_does_much_worse(tmp_path: Path) -> None:
    summary = last_json(
        webdojo(
            "run",
            "--policy",
            "random",
            "--limit",
            "12",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "r"),
            "--json",
        )
    )
    assert summary["episodes"] == 12
    assert summary["success_rate"] is not None and summary["success_rate"] <= 0.25
    agreement = last_json(webdojo("verify", str(tmp_path / "r"), "--json"))
    scored = summary["episodes"] - sum(summary["faults"].values())
    assert agreement["episodes"] == scored == agreement["agree"] and agreement["disagree"] == []


class HoldAfterFirstStep:
    """The scripted policy, except that episodes of the tasks in ``hold`` wait after their
    first step until the run is interrupted: those episodes are certainly cut off, the others
    certainly finish, whatever the machine's speed."""

    name = "scripted"

    def __init__(self, hold: set[str]) -> None:
        self.inner = make_policy("scripted")
        self.hold = hold
        self.held = 0

    def observation_options(self):  # type: ignore[no-untyped-def]
        return self.inner.observation_options()

    async def act(self, task, observation, history, *, seed=0):  # type: ignore[no-untyped-def]
        if task.id in self.hold and len(history) == 1:
            self.held += 1
            await asyncio.Event().wait()  # until cancelled: what SIGINT does to the run
        return await self.inner.act(task, observation, history, seed=seed)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_interrupted_run_resumes_without_losing_anything(tmp_path: Path) -> None:
    out = tmp_path / "resume"
    task_set = load_spec("builtin:login")
    held = {t.id for t in task_set.tasks[:2]}
    policy = HoldAfterFirstStep(held)
    config = RunConfig(tasks="builtin:login", out=str(out), concurrency=4)
    finished: list[str] = []

    async def interrupted() -> None:
        run = asyncio.create_task(
            run_job(config, task_set, policy, on_episode=lambda r: finished.append(r.key))  # type: ignore[arg-type]
        )
        while len(finished) < len(task_set.tasks) - len(held) or policy.held < len(held):
            await asyncio.sleep(0.05)
        run.cancel()  # asyncio.run turns SIGINT into exactly this
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(interrupted())
    before_episodes = (out / EPISODES).read_text()
    before_steps = (out / STEPS).read_text()
    cut = read_run(out)
    assert set(cut.episodes) == {f"{t.id}#0" for t in task_set.tasks if t.id not in held}
    assert set(cut.unfinished) == {f"{t}#0" for t in held}  # their first steps are stored...
    assert all(s.key not in cut.unfinished for s in cut.finished_steps())  # ...never counted

    summary = last_json(webdojo("run", "--tasks", "builtin:login", "--out", str(out), "--json"))
    assert summary["episodes"] == 11 and summary["success_rate"] == 1.0
    # append-only: everything written before the interruption is still there, byte for byte
    assert (out / EPISODES).read_text().startswith(before_episodes)
    assert (out / STEPS).read_text().startswith(before_steps)
    rerun = [e.key for e in lines_as(out / EPISODES, EpisodeRecord)[len(cut.episodes) :]]
    assert sorted(rerun) == sorted(f"{t}#0" for t in held)  # finished episodes were skipped
    assert read_run(out).superseded == len(held)


def test_sigint_stops_a_run_whose_requests_hang(tmp_path: Path) -> None:
    """SIGINT ends `webdojo run` at once even while every request hangs (a frozen server):
    nothing can finish, so none is recorded, and a resume finishes every episode."""
    from webdojo.server.child_process import ServerProcess

    out = tmp_path / "run"
    with ServerProcess(["--workers", "0", "--tasks", "builtin:login"]) as server:
        os.kill(server.pid, signal.SIGSTOP)
        try:
            args = ["run", "--tasks", "builtin:login", "--server", server.url, "--out", str(out)]
            proc = interruptible(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 120
            while not (out / "config.json").exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # config.json is written once the run (and its handler) began
            err = stop_with_sigint(proc, "webdojo run")
            assert proc.returncode == 130, err[-2000:]
        finally:
            os.kill(server.pid, signal.SIGCONT)
        assert read_run(out).episodes == {}
        resumed = webdojo("run", "--tasks", "builtin:login", "--server", server.url,
                          "--out", str(out), "--json")  # fmt: skip
    summary = last_json(resumed)
    assert summary["episodes"] == 11 and summary["success_rate"] == 1.0


def test_bad_task_spec_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "tasks.json"
    bad.write_text("[{")
    proc = webdojo("run", "--tasks", str(bad), "--out", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert "bad_task_file" in proc.stderr and "invalid JSON" in proc.stderr


def test_run_against_a_server_process(tmp_path: Path) -> None:
    """`webdojo serve` in one process, `webdojo run --server` in another: same results."""
    from webdojo.server.child_process import ServerProcess

    with ServerProcess(["--workers", "1"]) as server:
        summary = last_json(
            webdojo(
                "run",
                "--server",
                server.url,
                "--tasks",
                "builtin:login",
                "--limit",
                "4",
                "--out",
                str(tmp_path / "s"),
                "--json",
            )
        )
    assert summary["episodes"] == 4 and summary["success_rate"] == 1.0
    config = json.loads((tmp_path / "s" / "config.json").read_text())
    assert config["server"] == server.url and "token" not in config
