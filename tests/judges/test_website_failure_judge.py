"""The website-failure judge (Weblica): one question, three labels."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer, Reply
from judges.model_runs import (
    Script,
    context_error,
    images_of,
    sides_of,
    task,
    user_text,
    write_trajectory,
)
from webdojo.cli import app
from webdojo.errors import ModelError, ModelTimeout
from webdojo.judges.base import JudgeOptions
from webdojo.judges.spec import build_judge
from webdojo.judges.trajectory import Trajectory
from webdojo.judges.website_failure import WebsiteFailureJudge
from webdojo.models import ModelConfig
from webdojo.models.reply_cache import ReplyCache
from webdojo.store.verdicts import Verdict


@pytest.fixture
def trajectory(tmp_path: Path) -> Trajectory:
    return write_trajectory(tmp_path / "run", steps=3)


async def _judge(config: ModelConfig, t: Trajectory, **options: Any) -> Verdict:
    async with WebsiteFailureJudge(JudgeOptions(model=config, **options)) as judge:
        return await judge.judge(t)


@pytest.mark.parametrize(
    ("reply", "label", "reward", "passed"),
    [
        ("The cart shows the lamp at step 3.\n**Verdict:** SUCCESS", "success", 1.0, True),
        ("Wrong lamp (step 2).\nVerdict: FAILURE", "failure", 0.0, False),
        ("Wrong lamp.\nVerdict: NOT SUCCESS", "failure", 0.0, False),
        ("Blank pages from step 1 on.\nVerdict: WEBSITE FAILURE", "website_failure", None, None),
        ("Spinner forever.\n2. Verdict: website_failure", "website_failure", None, None),
    ],
)
async def test_three_labels(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory,
    reply: str, label: str, reward: float | None, passed: bool | None,
) -> None:  # fmt: skip
    script = Script({"website_failure": reply})
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, trajectory)
    assert (verdict.label, verdict.reward) == (label, reward)
    [criterion] = verdict.criteria
    assert (criterion.kind, criterion.passed) == ("task", passed)
    assert criterion.evidence and set(criterion.evidence) <= {0, 1, 2, 3}
    assert script.asked == ["website_failure"] and verdict.usage.calls == 1


async def test_the_prompt_carries_the_criteria_actions_and_answer(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    fake_openai.respond_with(Script())
    await _judge(fake_model_config, write_trajectory(tmp_path / "a"))
    text = user_text(fake_openai.last_request)
    assert "- the lamp is in the cart" in text and "- the price is shown" in text
    assert "step 0 (http://127.0.0.1/shop/): click(" in text and "$39" in text
    assert len(images_of(fake_openai.last_request)) == 4
    plain = task(rubric=None, difficulty=None, level=None)
    await _judge(fake_model_config, write_trajectory(tmp_path / "b", plain))
    assert f"- the task is done as asked: {plain.instruction}" in user_text(
        fake_openai.last_request
    )


async def test_long_trajectories_are_sampled_under_the_cap(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    t = write_trajectory(tmp_path / "run", steps=10)  # 11 screenshots
    fake_openai.respond_with(Script())
    verdict = await _judge(fake_model_config, t, max_images=4)
    sent = images_of(fake_openai.last_request)
    assert sent == [t.image(t.shots[i]) for i in (0, 3, 7, 10)]  # spread, first and last
    assert verdict.notes == ["sampled 4 of 11 screenshots"]
    assert "Screenshot 4: step 10 (the final page)" in user_text(fake_openai.last_request)


async def test_unparseable_replies_are_counted_infra_errors(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: "Verdict: it depends")
    verdict = await _judge(fake_model_config, trajectory, attempts=3)
    assert verdict.label == "infra_error" and verdict.unparseable
    assert len(fake_openai.requests) == 3 == verdict.usage.calls
    assert verdict.model == fake_openai.model


async def test_the_context_is_fitted_or_given_up_on(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    t = write_trajectory(tmp_path / "run", steps=5, size=(1600, 900))

    def reply(body: dict[str, Any]) -> str | Reply:
        fits = len(sides_of(body)) <= 3 and max(sides_of(body)) <= 400
        return "Verdict: SUCCESS" if fits else context_error()

    fake_openai.respond_with(reply)
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == "success"
    assert verdict.notes == [
        "trajectory: downscaled 6 images to 320 px to fit the model's context",
        "trajectory: dropped 3 of 6 images (the oldest) to fit the model's context",
    ]
    assert verdict.criteria[0].evidence == [3, 4, 5] and len(fake_openai.requests) == 7
    fake_openai.reset()
    fake_openai.respond_with(lambda body: context_error())
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == "infra_error" and verdict.error is not None
    assert verdict.error.code == "context_too_long" and verdict.usage.calls == 9


async def test_endpoint_failures_leave_the_judge(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: Reply(status=503))
    with pytest.raises(ModelError, match="HTTP 503"):
        await _judge(fake_model_config, trajectory)
    fake_openai.reset()
    fake_openai.respond_with(lambda body: Reply("Verdict: SUCCESS", delay_s=5))
    config = dataclasses.replace(fake_model_config, timeout_s=0.3, max_retries=0)
    with pytest.raises(ModelTimeout):
        await _judge(config, trajectory)


async def test_missing_screenshots_and_the_cache(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(Script())
    with ReplyCache(trajectory.run / "calls.jsonl") as cache:
        await _judge(fake_model_config, trajectory, cache=cache)
        again = await _judge(fake_model_config, trajectory, cache=cache)
    assert len(fake_openai.requests) == 1 and (again.usage.calls, again.usage.cached) == (0, 1)
    (trajectory.run / trajectory.shots[-1].path).unlink()
    verdict = await _judge(fake_model_config, trajectory)
    assert verdict.error is not None and "screenshot file(s) missing" in verdict.error.message
    assert len(fake_openai.requests) == 1


def test_the_spec_builds_it(fake_model_config: ModelConfig) -> None:
    judge = build_judge("website-failure", JudgeOptions(model=fake_model_config))
    assert isinstance(judge, WebsiteFailureJudge) and judge.needs_model


def test_the_cli_judges_a_run_with_model_judges_and_their_consensus(
    fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEBDOJO_MODEL_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    run = tmp_path / "run"
    write_trajectory(run)
    script = Script({"website_failure": "Blank page at step 2.\nVerdict: WEBSITE FAILURE"})
    fake_openai.respond_with(script)
    url = ["--model-base-url", fake_openai.base_url, "--model", fake_openai.model]
    spec = "consensus:rubric,website-failure,rubric-task"
    result = CliRunner().invoke(app, ["judge", str(run), "--judge", spec, *url, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["labels"]["success"] == 1 and summary["model_calls"] == len(script.asked)
    assert script.count("website_failure") == 1 and script.count("task") == 1
    result = CliRunner().invoke(app, ["judge", str(run), "--judge", "rubric"])
    assert result.exit_code == 2 and "needs a model endpoint" in result.stderr
