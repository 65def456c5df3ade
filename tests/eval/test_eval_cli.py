"""``webdojo eval`` through the real CLI against the real fake model endpoint: the endpoint is
checked before the first episode, one that dies midway stops the eval with exit 3 and the
same command resumes it, and a model whose replies never parse is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from e2e.cli_process import last_json, webdojo
from fakes.openai_server import FakeOpenAIServer, Reply
from webdojo.asgi import free_port
from webdojo.errors import ModelError
from webdojo.eval.suites import load_suite
from webdojo.models import ModelConfig, check_endpoint

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def small_suite(tmp_path: Path, tasks: int = 5, cap: int = 2) -> Path:
    """A suite file of a few built-in login tasks, each capped at ``cap`` steps."""
    chosen = load_suite("builtin").parts[0].tasks.tasks
    rows = [
        t.model_copy(update={"step_cap": cap}).model_dump(mode="json", exclude_none=True)
        for t in chosen
        if t.website == "login"
    ][:tasks]
    (tmp_path / "tasks.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    suite = tmp_path / "small.yaml"
    suite.write_text("name: small\nsets:\n  - name: login\n    tasks: tasks.jsonl\n")
    return suite


def test_suites_are_listed_and_shown() -> None:
    listed = last_json(webdojo("eval", "--list-suites", "--json"))["suites"]
    core = next(s for s in listed if s["name"] == "core")
    assert core["tasks"] == 83 and core["hash"].startswith("sha256:")
    shown = webdojo("eval", "--show-suite", "core")
    assert shown.returncode == 0 and core["hash"] in shown.stdout and "miniwob" in shown.stdout


def test_an_unknown_suite_exits_2_with_its_code(tmp_path: Path) -> None:
    proc = webdojo("eval", "--suite", "no-such-suite", "--out", tmp_path / "e")
    assert proc.returncode == 2 and "bad_suite" in proc.stderr
    assert not (tmp_path / "e").exists()


def test_a_dead_endpoint_exits_3_before_any_episode(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "e"
    proc = webdojo(
        "eval", "--suite", small_suite(tmp_path), "--policy", "openai",
        "--model-base-url", dead, "--model", "m", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "resume" in proc.stderr and not (out / "episodes.jsonl").exists()
    # `webdojo run` checks it the same way
    run = webdojo("run", "--tasks", "builtin:login", "--policy", "openai",
                  "--model-base-url", dead, "--out", tmp_path / "r")  # fmt: skip
    assert run.returncode == 3 and not (tmp_path / "r" / "episodes.jsonl").exists()


def test_an_endpoint_dying_midway_stops_and_the_same_command_resumes(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    replies = {"n": 0}

    def dies_after_four(_request: dict[str, Any]) -> Reply:
        replies["n"] += 1
        return Reply(text="I am not sure what to do.") if replies["n"] <= 4 else Reply(status=401)

    fake_openai.respond_with(dies_after_four)
    out = tmp_path / "e"
    args = (
        "eval", "--suite", small_suite(tmp_path, tasks=6), "--policy", "openai",
        "--model-base-url", fake_openai.base_url, "--model", fake_openai.model,
        "--concurrency", "1", "--out", out, "--json",
    )  # fmt: skip
    stopped = webdojo(*args)
    assert stopped.returncode == 3, stopped.stdout[-2000:] + stopped.stderr[-2000:]
    assert "model_down" in stopped.stderr and "resume" in stopped.stderr
    kept = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    scored_before = {e["key"] for e in kept if e["reward"] is not None}
    assert len(scored_before) == 2  # two episodes of 2 steps each, before the endpoint died

    fake_openai.respond_with(lambda _request: Reply(text="I am not sure what to do."))
    result = last_json(webdojo(*args))
    assert result["episodes"] == 6 and result["scored"] == 6 and result["faults"] == 0
    assert result["success"] == 0.0 and not result["invalid"]
    # a model that never answers in the template's format is named, not just scored 0
    assert result["parse_rate"] == 0.0 and "0 of 12" in result["parse_warning"]
    assert result["step_errors"] == {"parse_error": 12}
    again = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert scored_before <= {e["key"] for e in again if e["reward"] is not None}
    assert (out / "manifest.json").is_file() and (tmp_path / "results.csv").is_file()


async def test_the_endpoint_check_names_a_model_it_does_not_serve(
    fake_openai: FakeOpenAIServer,
) -> None:
    served = ModelConfig(base_url=fake_openai.base_url, model=fake_openai.model, max_retries=0)
    assert "reachable" in await check_endpoint(served)
    other = ModelConfig(base_url=fake_openai.base_url, model="no-such-model", max_retries=0)
    with pytest.raises(
        ModelError, match=f"does not serve the model 'no-such-model'.*{fake_openai.model}"
    ):
        await check_endpoint(other)
