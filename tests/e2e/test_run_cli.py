"""The main job through the real CLI: scripted succeeds everywhere, random does much worse,
interrupted runs resume without losing anything, and bad input gets a clear error."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webdojo.store.run_store import EPISODES, STEPS, read_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def webdojo(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBDOJO_MODEL", "OPENAI_"))}
    return subprocess.run(
        [sys.executable, "-m", "webdojo.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def last_json(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_scripted_default_policy_solves_every_builtin_task(tmp_path: Path) -> None:
    proc = webdojo("run", "--out", str(tmp_path / "run"), "--json")
    assert "using the scripted policy" in proc.stdout  # the one-line note when no model is set
    summary = last_json(proc)
    assert summary["episodes"] >= 40
    assert summary["success_rate"] == 1.0
    assert set(summary["by_site"]) == {"admin", "booking", "forms", "login", "shop", "wiki"}
    assert all(v["success_rate"] == 1.0 for v in summary["by_difficulty"].values())
    assert summary["out"] == str(tmp_path / "run")
    episodes = list(read_jsonl(tmp_path / "run" / EPISODES))
    assert len(episodes) == summary["episodes"]
    assert all(e["reward"] == 1.0 and e["fault"] is None for e in episodes)
    steps = list(read_jsonl(tmp_path / "run" / STEPS))
    assert sum(e["steps"] for e in episodes) == len(steps)
    for step in steps[:20]:
        assert (tmp_path / "run" / step["screenshot"]).is_file()
    assert (tmp_path / "run" / "report.html").is_file()


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


def test_interrupted_run_resumes_without_losing_anything(tmp_path: Path) -> None:
    out = tmp_path / "resume"
    args = [
        sys.executable,
        "-m",
        "webdojo.cli",
        "run",
        "--tasks",
        "builtin:login",
        "--concurrency",
        "2",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len(list(read_jsonl(out / EPISODES))) < 3:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    before_episodes = (out / EPISODES).read_text()
    before_steps = (out / STEPS).read_text()
    finished = {e["key"] for e in read_jsonl(out / EPISODES)}
    assert 3 <= len(finished) < 11

    summary = last_json(webdojo("run", "--tasks", "builtin:login", "--out", str(out), "--json"))
    assert summary["episodes"] == 11 and summary["success_rate"] == 1.0
    # append-only: everything written before the interruption is still there, byte for byte
    assert (out / EPISODES).read_text().startswith(before_episodes)
    assert (out / STEPS).read_text().startswith(before_steps)
    rerun = [e["key"] for e in list(read_jsonl(out / EPISODES))[len(finished) :]]
    assert not set(rerun) & finished  # finished episodes were skipped


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
