"""Imported tasks run through `webdojo run`: a website that cannot be reached is an
infrastructure fault, and a task without a verifier is recorded unverified, never as a 0."""

from __future__ import annotations

import json
import socket
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest
from tests.e2e.test_run_cli import last_json, webdojo

from webdojo.local_http import LoopbackHTTPServer
from webdojo.store.run_reader import read_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_website_is_infra_and_unverified_task_has_no_reward(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<h1>Prices</h1><p>The lamp costs $12.</p>")
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path / "site"))
    dead = f"http://127.0.0.1:{closed_port()}/"
    with LoopbackHTTPServer(handler).start() as live:
        tasks = [
            {"id": "imported:dead", "instruction": "Find the lamp's price.", "website": dead,
             "source": "webvoyager", "step_cap": 2},
            {"id": "imported:live", "instruction": "Find the lamp's price.",
             "website": live.base_url + "/", "start_url": live.base_url + "/index.html",
             "source": "webvoyager", "step_cap": 2,
             "reference_answers": [{"type": "golden", "answer": "$12"}]},
        ]  # fmt: skip
        task_file = tmp_path / "tasks.jsonl"
        task_file.write_text("".join(json.dumps(t) + "\n" for t in tasks))
        out = tmp_path / "run"
        args = ["run", "--tasks", str(task_file), "--policy", "random", "--out", str(out),
                # loopback stands for the web here: the operator lets these two origins in
                "--allow-host", live.base_url, "--allow-host", dead.rstrip("/")]  # fmt: skip
        summary = last_json(webdojo(*args, "--json"))
    assert summary["episodes"] == 2
    assert summary["faults"] == {"site_unreachable": 1}
    assert summary["success_rate"] is None  # nothing verified: no rate, and no silent 0
    episodes = read_run(out).episodes
    dead_ep, live_ep = episodes["imported:dead#0"], episodes["imported:live#0"]
    assert (dead_ep.fault, dead_ep.error and dead_ep.error.code) == ("infra", "site_unreachable")
    assert dead_ep.reward is None and dead_ep.steps == 0
    assert live_ep.fault is None and live_ep.outcome != "fault"
    assert (live_ep.reward, live_ep.success, live_ep.verifier) == (None, None, None)
    assert live_ep.final_state is not None and "lamp costs" in live_ep.final_state.text
