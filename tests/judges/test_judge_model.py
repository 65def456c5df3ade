"""JudgeModel against the local fake endpoint: cache, retries, timeouts, fitting the context."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from PIL import Image

from fakes.openai_server import FakeOpenAIServer, Reply, message_text
from judges.model_runs import context_error, sides_of, write_trajectory
from webdojo.errors import ConfigError, ContextTooLong, ModelError, ModelOutputInvalid, ModelTimeout
from webdojo.judges.base import JudgeOptions
from webdojo.judges.judge_model import (
    MIN_SIDE,
    NEEDS_MODEL,
    JudgeModel,
    Picture,
    Question,
    Tally,
    downscaled,
    is_context_error,
)
from webdojo.judges.judge_prompts import FACT
from webdojo.judges.trajectory import Trajectory
from webdojo.judges.verdict_text import Reading, read_verdict
from webdojo.models import ModelConfig
from webdojo.models.reply_cache import ReplyCache
from webdojo.models.usage import Price

OK = "Analysis: fine.\nVerdict: SUCCESS"


def _pictures(t: Trajectory) -> list[Picture]:
    return [Picture.of(t, s) for s in t.shots]


def _question(t: Trajectory, pictures: list[Picture] | None = None) -> Question[Reading]:
    pictures = _pictures(t) if pictures is None else pictures
    return Question(FACT, "FACT TO CHECK: x", read_verdict, pictures, topic="fact G1.1")


@pytest.fixture
def trajectory(tmp_path: Path) -> Trajectory:
    return write_trajectory(tmp_path / "run", steps=3, size=(1280, 800))  # 4 screenshots


def test_no_endpoint_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="--model-base-url or WEBDOJO_MODEL_BASE_URL"):
        JudgeModel(JudgeOptions(model=None))
    assert "needs a model endpoint" in NEEDS_MODEL


async def test_a_reply_is_cached_by_content(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory,
    tmp_path: Path,
) -> None:  # fmt: skip
    fake_openai.respond_with(lambda body: OK)
    price = Price(input_per_m=1.0, output_per_m=2.0)
    with ReplyCache(tmp_path / "calls.jsonl") as cache:
        model = JudgeModel(JudgeOptions(model=fake_model_config, cache=cache, price=price))
        first, second = Tally(), Tally()
        a = await model.ask(_question(trajectory), first)
        b = await model.ask(_question(trajectory), second)
        await model.aclose()
    assert len(fake_openai.requests) == 1
    assert (a.value, a.cached, b.value, b.cached) == (b.value, False, a.value, True)
    assert a.shown == [0, 1, 2, 3]
    usage = first.judge_usage(model.options)
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.cost is not None
    assert (second.usage.calls, second.cached) == (0, 1)
    # another picture set is another question
    with ReplyCache(tmp_path / "calls.jsonl") as cache:
        model = JudgeModel(JudgeOptions(model=fake_model_config, cache=cache))
        await model.ask(_question(trajectory, _pictures(trajectory)[:2]), Tally())
        await model.aclose()
    assert len(fake_openai.requests) == 2


async def test_garbage_is_shown_its_error_then_model_output_invalid(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: "I think the agent did fine overall.")
    model = JudgeModel(JudgeOptions(model=fake_model_config, attempts=3))
    tally = Tally()
    with pytest.raises(ModelOutputInvalid, match="no valid reply in 3 attempt"):
        await model.ask(_question(trajectory), tally)
    await model.aclose()
    assert len(fake_openai.requests) == 3 and tally.usage.calls == 3
    repair = message_text(fake_openai.requests[1]["messages"][-1])
    assert "no Verdict line found" in repair and "Verdict: SUCCESS" in repair


async def test_a_429_is_retried_by_the_client(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.push(Reply(status=429, headers={"retry-after": "0"}))
    fake_openai.respond_with(lambda body: OK)
    model = JudgeModel(JudgeOptions(model=fake_model_config))
    answer = await model.ask(_question(trajectory), Tally())
    await model.aclose()
    assert answer.value.value == "success" and len(fake_openai.requests) == 2


async def test_a_timeout_leaves_as_model_timeout(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: Reply(OK, delay_s=5.0))
    config = dataclasses.replace(fake_model_config, timeout_s=0.3, max_retries=1)
    model = JudgeModel(JudgeOptions(model=config))
    with pytest.raises(ModelTimeout, match=r"did not answer within 0\.3s"):
        await model.ask(_question(trajectory), Tally())
    await model.aclose()
    assert len(fake_openai.requests) == 2  # the first attempt and one retry


async def test_a_server_error_is_not_mistaken_for_a_long_context(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: Reply(status=500))
    model = JudgeModel(JudgeOptions(model=fake_model_config))
    with pytest.raises(ModelError, match="HTTP 500") as caught:
        await model.ask(_question(trajectory), Tally())
    await model.aclose()
    assert not isinstance(caught.value, ContextTooLong)
    assert len(fake_openai.requests) == 3  # 1 + max_retries 2


async def test_too_large_images_are_downscaled_and_noted(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: context_error() if max(sides_of(body)) > 400 else OK)
    model = JudgeModel(JudgeOptions(model=fake_model_config))
    tally = Tally()
    answer = await model.ask(_question(trajectory), tally)
    await model.aclose()
    assert [sides_of(b) for b in fake_openai.requests] == [[1280] * 4, [640] * 4, [MIN_SIDE] * 4]
    assert answer.shown == [0, 1, 2, 3] and answer.value.value == "success"
    assert tally.notes == ["fact G1.1: downscaled 4 images to 320 px to fit the model's context"]
    assert tally.usage.calls == 3  # the two refused requests count


async def test_too_many_images_drop_the_oldest_and_nothing_fitting_raises(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: context_error() if len(sides_of(body)) > 2 else OK)
    model = JudgeModel(JudgeOptions(model=fake_model_config))
    tally = Tally()
    answer = await model.ask(_question(trajectory), tally)
    assert answer.shown == [2, 3]  # the final pages stay
    assert tally.notes[-1] == (
        "fact G1.1: dropped 2 of 4 images (the oldest) to fit the model's context"
    )
    assert any("downscaled 4 images to 320 px" in n for n in tally.notes)
    fake_openai.reset()
    fake_openai.respond_with(lambda body: context_error())
    with pytest.raises(ContextTooLong, match="even with one image at 320 px"):
        await model.ask(_question(trajectory, _pictures(trajectory)[1:]), Tally())
    await model.aclose()
    # 1 as is + 2 downscaled + 2 drops (3 images -> 2 -> 1)
    assert len(fake_openai.requests) == 5


async def test_the_image_cap_keeps_priority_then_recency(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig, trajectory: Trajectory
) -> None:
    fake_openai.respond_with(lambda body: OK)
    pictures = _pictures(trajectory)
    pictures[0] = dataclasses.replace(pictures[0], priority=1)
    model = JudgeModel(JudgeOptions(model=fake_model_config, max_images=2))
    tally = Tally()
    answer = await model.ask(_question(trajectory, pictures), tally)
    await model.aclose()
    assert answer.shown == [0, 3]
    assert tally.notes == [
        "fact G1.1: left out 2 of 4 images (at most 2 per request; "
        "kept the highest-priority, then the most recent)"
    ]


@pytest.mark.parametrize(
    ("status", "text", "expected"),
    [
        (400, "This model's maximum context length is 8192 tokens", True),
        (400, "The decoder prompt (length 9000) is longer than the maximum model length", True),
        (400, "context_length_exceeded", True),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", True),
        (400, "At most 4 image(s) may be provided in one request", True),
        (413, "Request Entity Too Large", True),
        (400, "messages: field required", False),
        (500, "maximum context length", False),
        (None, "maximum context length", False),
    ],
)
def test_context_errors_are_recognised(status: int | None, text: str, expected: bool) -> None:
    details = {} if status is None else {"status": status}
    error = ModelError(f"model endpoint http://x/v1 answered HTTP {status}: {text}", **details)
    assert is_context_error(error) is expected


def test_downscaling_halves_keeps_the_aspect_and_the_format(trajectory: Trajectory) -> None:
    picture = _pictures(trajectory)[0]
    small = downscaled(picture, 640)
    with Image.open(io.BytesIO(small.data)) as image:
        assert image.size == (640, 400) and image.format == "PNG"
    assert small.name == picture.name and downscaled(small, 640) is small
