"""A `webdojo serve` that dies mid-run: the run stops early with a clear message and a
non-zero exit instead of recording every remaining episode as a fault, and a resume against a
server that is back finishes the rest, each episode once."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from cli_process import webdojo

from fakes.openai_server import unused_port
from webdojo.errors import ServerDown
from webdojo.history import Decision, Step
from webdojo.observation import Observation
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.server.child_process import ServerProcess
from webdojo.store.run_reader import read_run
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TASKS = "builtin:login"
EPISODES = 11  # the login site's tasks


class KillServerAt:
    """The scripted policy; at its ``at``-th decision it kills the server (SIGKILL, like a
    crash) and waits until the process is gone: the run meets a dead server at a known point."""

    name = "scripted"

    def __init__(self, server: ServerProcess, at: int) -> None:
        self.inner = make_policy("scripted")
        self.server, self.at, self.calls = server, at, 0

    def observation_options(self):  # type: ignore[no-untyped-def]
        return self.inner.observation_options()

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        self.calls += 1
        if self.calls == self.at:
            os.kill(self.server.pid, signal.SIGKILL)
            while self.server.alive():
                await asyncio.sleep(0.05)
        return await self.inner.act(task, observation, history, seed=seed)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_server_killed_mid_run_stops_the_run_and_a_resume_finishes_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ServerProcess(["--workers", "0", "--tasks", TASKS]) as server:
        config = RunConfig(tasks=TASKS, out=str(out), concurrency=2, server=server.url)
        policy = KillServerAt(server, at=8)
        with pytest.raises(ServerDown) as stopped:
            asyncio.run(run_job(config, load_spec(TASKS), policy))  # type: ignore[arg-type]
    before = read_run(out)
    faults = [r for r in before.episodes.values() if r.fault is not None]
    assert {r.error.code for r in faults if r.error} == {"server_unavailable"}
    assert 3 <= len(faults) <= 4  # three in a row stop it; the other slot's may end as well
    not_started = EPISODES - len(before.episodes)
    assert not_started >= 1 and stopped.value.details["not_started"] == not_started

    # the server is back (a new process, same task set): the same command resumes
    with ServerProcess(["--workers", "0", "--tasks", TASKS]) as server:
        proc = webdojo("run", "--tasks", TASKS, "--server", server.url, "--out", str(out))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    after = read_run(out, strict=True)
    assert len(after.episodes) == EPISODES
    assert all(r.success is True for r in after.episodes.values())
    finished_before = {k for k, r in before.episodes.items() if r.fault is None}
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == len(before.episodes) + EPISODES - len(finished_before)  # each once


def test_an_unreachable_server_exits_3_with_what_to_do(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{unused_port()}"  # nothing listens there
    proc = webdojo("run", "--tasks", TASKS, "--server", url, "--out", str(tmp_path / "run"))
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "server_down" in proc.stderr or "unreachable" in proc.stderr
    assert url in proc.stderr and "run the same command again to resume" in proc.stderr
    run = read_run(tmp_path / "run")
    assert 3 <= len(run.episodes) < EPISODES  # the rest were never started, so never recorded
