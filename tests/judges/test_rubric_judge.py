"""The rubric judge (WebGym) against the fake endpoint with replies scripted per prompt."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from fakes.openai_server import FakeOpenAIServer, Reply
from judges.model_runs import (
    TASK,
    Script,
    context_error,
    images_of,
    sides_of,
    task,
    user_text,
    write_trajectory,
)
from webdojo.errors import ConfigError, ModelTimeout
from webdojo.judges.base import JudgeOptions
from webdojo.judges.rubric import NOT_CHECKED, RubricJudge
from webdojo.judges.runner import judge_run
from webdojo.judges.spec import build_judge
from webdojo.judges.trajectory import Trajectory
from webdojo.models import ModelConfig
from webdojo.models.reply_cache import ReplyCache
from webdojo.store.verdicts import Verdict, calls_path, read_verdicts

FAIL = "1. Analysis: the cart is empty at step 3.\n2. Verdict: NOT SUCCESS"
FACTS = ["G1.1", "G1.2", "G2.1"]


@pytest.fixture
def trajectory(tmp_path: Path) -> Trajectory:
    return write_trajectory(tmp_path / "run", steps=3)  # 4 screenshots, steps 0-3


async def _judge(config: ModelConfig, t: Trajectory, **options: Any) -> Verdict:
    async with RubricJudge(JudgeOptions(model=config, **options)) as judge:
        return await judge.judge(t)


def _criteria(verdict: Verdict) -> dict[str, bool | None]:
    return {c.name: c.passed for c in verdict.criteria}


async def test_every_fact_passing_is_a_success(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    script = Script()
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, trajectory)
    assert (verdict.label, verdict.reward, verdict.error) == ("success", 1.0, None)
    assert _criteria(verdict) == {"keypoints": None, **dict.fromkeys(FACTS, True),
                                  "anti-hallucination": True}  # fmt: skip
    # three keypoint questions (the final page is kept without asking), three facts, the answer
    assert script.asked == ["keypoint"] * 3 + ["fact"] * 3 + ["answer"]
    assert verdict.usage.calls == 7 == len(fake_openai.requests)
    assert verdict.model == fake_openai.model and verdict.usage.tokens > 0
    facts = [c for c in verdict.criteria if c.kind == "fact"]
    assert all(c.evidence == [2] for c in facts)  # the reply cites step 2
    keypoints = verdict.criteria[0]
    assert keypoints.evidence == [0, 1, 2, 3]
    fact_requests = [b for b in fake_openai.requests if "FACT TO CHECK" in user_text(b)]
    assert [len(images_of(b)) for b in fact_requests] == [4, 4, 4]
    assert "the lamp is in the cart" in user_text(fact_requests[1])


async def test_the_first_failed_fact_stops_the_checks(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    script = Script(facts={"the brass desk lamp page is open": FAIL})
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, trajectory)
    assert (verdict.label, verdict.reward) == ("failure", 0.0)
    assert _criteria(verdict) == {"keypoints": None, "G1.1": False, "G1.2": None, "G2.1": None,
                                  "anti-hallucination": None, "blocking": True}  # fmt: skip
    assert next(c for c in verdict.criteria if c.name == "G1.2").reason == NOT_CHECKED
    assert script.count("fact") == 1 and script.count("answer") == 0
    assert script.count("blocking") == 1  # a failure: was the agent blocked?
    assert len(fake_openai.requests) == 3 + 1 + 1


async def test_all_facts_checks_every_fact(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    script = Script(facts={"the brass desk lamp page is open": FAIL})
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, trajectory, all_facts=True)
    assert verdict.label == "failure"
    assert [_criteria(verdict)[f] for f in FACTS] == [False, True, True]
    assert _criteria(verdict)["anti-hallucination"] is True
    assert script.count("fact") == 3 and len(fake_openai.requests) == 3 + 3 + 1 + 1


async def test_a_hallucinated_answer_fails(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(
        Script({"answer": "1. Claims: $39 - not shown.\nVerdict: NOT SUCCESS"})
    )
    verdict = await _judge(fake_model_config, trajectory)
    assert verdict.label == "failure" and _criteria(verdict)["anti-hallucination"] is False


async def test_a_blocked_agent_is_labelled_blocked(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    script = Script(
        {"blocking": "Reason: a CAPTCHA on every page (steps 1-3).\nBlocked: YES", "fact": FAIL}
    )
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, trajectory)
    assert (verdict.label, verdict.reward) == ("blocked", None)
    blocking = verdict.criteria[-1]
    assert (blocking.kind, blocking.passed) == ("blocking", False)
    assert "CAPTCHA" in blocking.reason and blocking.evidence == [1, 2, 3]


@pytest.mark.parametrize(
    ("kind", "agrees", "fact", "label"),
    [
        ("golden", "YES", FAIL, "success"),  # the reference overrides failed facts...
        ("golden", "NO", None, "failure"),  # ...and passed ones
        ("possible", "YES", FAIL, "success"),
        ("possible", "NO", None, "success"),  # a possible reference may be out of date
    ],
)
async def test_a_reference_answer_overrides(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path,
    kind: str, agrees: str, fact: str | None, label: str,
) -> None:  # fmt: skip
    the_task = task(reference_answers=[{"type": kind, "answer": "39 dollars"}])
    t = write_trajectory(tmp_path / "run", the_task)
    replies = {"reference": f"Reason: compared.\nAgrees: {agrees}"}
    if fact:
        replies["fact"] = fact
    script = Script(replies)
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == label
    reference = next(c for c in verdict.criteria if c.kind == "reference")
    assert reference.passed is (agrees == "YES")
    assert ("overrides" in reference.reason) is (kind == "golden" or agrees == "YES")
    assert script.count("reference") == 1


async def test_an_answer_equal_to_the_reference_needs_no_question(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    the_task = task(reference_answers=[{"type": "golden", "answer": "$39"}])
    t = write_trajectory(tmp_path / "run", the_task, answer=" $39. ")
    script = Script()
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == "success" and script.count("reference") == 0
    assert "equals the golden reference" in verdict.criteria[-1].reason


async def test_missing_screenshots_or_task_are_named(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    t = write_trajectory(tmp_path / "run")
    (t.run / t.shots[1].path).unlink()
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == "infra_error" and verdict.error is not None
    assert verdict.error.code == "trajectory_incomplete"
    assert "1 screenshot file(s) missing" in verdict.error.message
    bare = dataclasses.replace(t, steps=[
        s.model_copy(update={"screenshot": None, "next_screenshot": None}) for s in t.steps
    ], task=None)  # fmt: skip
    verdict = await _judge(fake_model_config, bare)
    assert verdict.error is not None and "no screenshots" in verdict.error.message
    assert "not in the run's task set" in verdict.error.message
    assert fake_openai.requests == []


async def test_replies_that_never_parse_are_an_unparseable_infra_error(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: "The agent seems to have done something.")
    verdict = await _judge(fake_model_config, trajectory, attempts=2)
    assert (verdict.label, verdict.reward) == ("infra_error", None)
    assert verdict.error is not None and verdict.error.code == "model_output_invalid"
    assert verdict.unparseable
    # keypoints keep what never parsed (high recall); the first fact gives up after 2 replies
    assert len(fake_openai.requests) == 3 * 2 + 2 == verdict.usage.calls
    assert "keypoints: the reply on step 0 never parsed; kept it" in verdict.notes


async def test_a_context_that_never_fits_is_an_infra_error(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(Script({"fact": lambda body: context_error()}))
    verdict = await _judge(fake_model_config, trajectory)
    assert verdict.label == "infra_error" and verdict.error is not None
    assert verdict.error.code == "context_too_long"
    assert "fact G1.1" in verdict.error.message
    assert any("dropped 3 of 4 images" in n for n in verdict.notes)


async def test_downscaling_to_fit_is_noted_in_the_verdict(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    t = write_trajectory(tmp_path / "run", size=(1280, 720))

    def fact(body: dict[str, Any]) -> str | Reply:
        return context_error() if max(sides_of(body)) > 700 else "Verdict: SUCCESS"

    fake_openai.respond_with(Script({"fact": fact}))
    verdict = await _judge(fake_model_config, t)
    assert verdict.label == "success"
    assert "fact G1.1: downscaled 4 images to 640 px to fit the model's context" in verdict.notes
    assert "fact G2.1: downscaled 4 images to 640 px to fit the model's context" in verdict.notes


async def test_a_timeout_stops_the_judge(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(Script({"fact": lambda body: Reply("Verdict: SUCCESS", delay_s=5)}))
    config = dataclasses.replace(fake_model_config, timeout_s=0.3, max_retries=0)
    with pytest.raises(ModelTimeout):
        await _judge(config, trajectory)


async def test_a_429_is_retried(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.push(Reply(status=429))
    fake_openai.respond_with(Script())
    verdict = await _judge(fake_model_config, trajectory)
    assert verdict.label == "success" and len(fake_openai.requests) == 8


async def test_task_only_prompting_and_the_fallback_without_a_rubric(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    script = Script()
    fake_openai.respond_with(script)
    t = write_trajectory(tmp_path / "a")
    verdict = await _judge(fake_model_config, t, prompt="task")
    assert _criteria(verdict) == {"keypoints": None, "task": True, "anti-hallucination": True}
    assert script.asked == ["keypoint"] * 3 + ["task", "answer"] and verdict.notes == []
    keypoint = next(b for b in fake_openai.requests if "relevant" in user_text(b))
    assert "must show" not in user_text(keypoint)  # task-only: no rubric anywhere
    no_rubric = write_trajectory(tmp_path / "b", task(rubric=None, difficulty=None, level=None))
    verdict = await _judge(fake_model_config, no_rubric)
    assert "task" in _criteria(verdict)
    assert verdict.notes == ["the task has no rubric: judged with the task-only prompt"]


async def test_keypoints_leave_out_irrelevant_pages_and_respect_the_cap(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    t = write_trajectory(tmp_path / "run", steps=5)  # screenshots of steps 0-5

    def keypoint(body: dict[str, Any]) -> str:
        first = images_of(body)[0] == t.image(t.shots[0])
        return "Reason: a blank start page.\nRelevant: NO" if first else "Relevant: YES"

    fake_openai.respond_with(Script({"keypoint": keypoint}))
    verdict = await _judge(fake_model_config, t, max_images=3)
    assert verdict.criteria[0].evidence == [3, 4, 5]
    assert "irrelevant: step 0 (a blank start page.)" in verdict.criteria[0].reason
    assert (
        "keypoints: 5 screenshots relevant; kept the final page and the 2 most recent"
        in (verdict.notes[0])
    )
    fact = next(b for b in fake_openai.requests if "FACT TO CHECK" in user_text(b))
    assert len(images_of(fact)) == 3


async def test_no_answer_skips_the_hallucination_check(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    script = Script()
    fake_openai.respond_with(script)
    verdict = await _judge(fake_model_config, write_trajectory(tmp_path / "r", answer=None))
    assert verdict.label == "success" and _criteria(verdict)["anti-hallucination"] is None
    assert script.count("answer") == 0


async def test_a_second_pass_is_served_from_the_cache(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(Script())
    with ReplyCache(calls_path(trajectory.run, "rubric")) as cache:
        first = await _judge(fake_model_config, trajectory, cache=cache)
    fake_openai.reset()
    with ReplyCache(calls_path(trajectory.run, "rubric")) as cache:
        second = await _judge(fake_model_config, trajectory, cache=cache)
    assert fake_openai.requests == []
    assert (second.label, second.usage.calls, second.usage.cached) == ("success", 0, 7)
    assert second.criteria == first.criteria


def test_the_runner_judges_a_run_with_the_registered_spec_and_resumes_for_free(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    write_trajectory(run, key=f"{TASK.id}#0")
    write_trajectory(run, key=f"{TASK.id}#1", tasks_file=False)
    fake_openai.respond_with(Script())
    options = JudgeOptions(model=fake_model_config)
    report = asyncio.run(judge_run(run, "rubric", options))
    assert report.to_json()["labels"]["success"] == 2 and len(fake_openai.requests) == 14
    assert report.to_json()["pass_at_k"]["1"] == 1.0
    fake_openai.reset()
    again = asyncio.run(judge_run(run, "rubric", options, force=True))
    assert fake_openai.requests == [] and again.to_json()["cached_calls"] == 14
    assert {v.label for v in read_verdicts(run, "rubric").values()} == {"success"}


def test_the_specs_build_the_rubric_judges_and_need_an_endpoint(
    fake_model_config: ModelConfig,
) -> None:
    judge = build_judge("rubric-task", JudgeOptions(model=fake_model_config))
    assert isinstance(judge, RubricJudge) and judge.needs_model
    assert judge.options.prompt == "task" and judge.name == "rubric-task"
    with pytest.raises(ConfigError, match="needs a model endpoint"):
        build_judge("rubric", JudgeOptions())
