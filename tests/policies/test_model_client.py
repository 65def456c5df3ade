"""ModelClient against the real fake endpoint: retries, deadlines, error translation."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from fakes.openai_server import FakeOpenAIServer, Reply, unused_port
from webdojo.errors import ModelError, ModelTimeout
from webdojo.models import ModelClient, ModelConfig, image_data_url

HELLO = [{"role": "user", "content": "hello"}]


async def test_chat_returns_text_usage_and_latency(fake_openai, fake_model_config):
    fake_openai.push("hi there")
    async with ModelClient(fake_model_config) as client:
        result = await client.chat(HELLO, temperature=0.7, max_tokens=5)
    assert result.text == "hi there"
    assert result.model == fake_openai.model
    assert result.usage["completion_tokens"] == 2
    assert result.usage["total_tokens"] == result.usage["prompt_tokens"] + 2
    assert result.latency_s > 0 and result.attempts == 1
    sent = fake_openai.last_request
    assert sent["temperature"] == 0.7 and sent["max_tokens"] == 5
    assert sent["messages"] == HELLO


async def test_extra_body_and_model_discovery(fake_openai, fake_model_config):
    config = dataclasses.replace(fake_model_config, model="", extra_body={"top_k": 20})
    async with ModelClient(config) as client:
        await client.chat(HELLO)
        await client.chat(HELLO)
    assert fake_openai.model_list_calls == 1  # the first listed model is looked up once
    assert fake_openai.last_request["model"] == fake_openai.model
    assert fake_openai.last_request["top_k"] == 20


async def test_server_error_then_success_is_retried(fake_openai, fake_model_config):
    fake_openai.push(Reply(status=500), Reply(status=429, headers={"retry-after": "0"}), "fine")
    async with ModelClient(fake_model_config) as client:
        result = await client.chat(HELLO)
    assert result.text == "fine" and result.attempts == 3
    assert len(fake_openai.requests) == 3


async def test_persistent_500_gives_up_with_model_error(fake_openai, fake_model_config):
    fake_openai.push(*[Reply(status=503)] * 5)
    async with ModelClient(fake_model_config) as client:
        with pytest.raises(ModelError) as info:
            await client.chat(HELLO)
    assert info.value.details["status"] == 503
    assert info.value.details["attempts"] == fake_model_config.max_retries + 1
    assert info.value.__cause__ is not None


async def test_client_errors_are_not_retried(fake_openai, fake_model_config):
    fake_openai.push(Reply(status=401), "never sent")
    async with ModelClient(fake_model_config) as client:
        with pytest.raises(ModelError, match="HTTP 401"):
            await client.chat(HELLO)
    assert len(fake_openai.requests) == 1


async def test_hang_past_timeout_raises_model_timeout(fake_openai, fake_model_config):
    config = dataclasses.replace(fake_model_config, timeout_s=0.3, max_retries=1)
    fake_openai.push(Reply(delay_s=5), Reply(delay_s=5))
    async with ModelClient(config) as client:
        with pytest.raises(ModelTimeout) as info:
            await client.chat(HELLO)
    assert info.value.code == "model_timeout" and info.value.fault == "infra"
    assert len(fake_openai.requests) == 2  # a timeout is transient: retried once


async def test_connection_refused_raises_model_error():
    config = ModelConfig(base_url=f"http://127.0.0.1:{unused_port()}/v1", model="m",
                         max_retries=1, backoff_s=0.01)  # fmt: skip
    async with ModelClient(config) as client:
        with pytest.raises(ModelError, match="cannot reach") as info:
            await client.chat(HELLO)
    assert not isinstance(info.value, ModelTimeout)
    assert info.value.details["attempts"] == 2


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(raw_body="{not json"), "malformed"),
        (Reply(choices=[]), "no choices"),
        (Reply(text=None), "empty reply"),
        (Reply(text="   "), "empty reply"),
    ],
)
async def test_broken_envelopes_raise_model_error(fake_openai, fake_model_config, reply, message):
    fake_openai.push(reply)
    async with ModelClient(fake_model_config) as client:
        with pytest.raises(ModelError, match=message):
            await client.chat(HELLO)


async def test_concurrency_is_capped(fake_openai, fake_model_config):
    config = dataclasses.replace(fake_model_config, max_concurrency=2)
    fake_openai.respond_with(lambda body: Reply(text="ok", delay_s=0.1))
    async with ModelClient(config) as client:
        results = await asyncio.gather(*(client.chat(HELLO) for _ in range(6)))
    assert [r.text for r in results] == ["ok"] * 6
    assert fake_openai.max_in_flight == 2


async def test_ping(fake_openai, fake_model_config):
    async with ModelClient(fake_model_config) as client:
        line = await client.ping()
    assert "reachable" in line and fake_openai.model in line
    dead = ModelConfig(base_url=f"http://127.0.0.1:{unused_port()}/v1")
    async with ModelClient(dead) as client:
        with pytest.raises(ModelError):
            await client.ping()


def test_from_env(monkeypatch):
    for var in ("WEBDOJO_MODEL_BASE_URL", "OPENAI_BASE_URL", "WEBDOJO_MODEL",
                "WEBDOJO_API_KEY", "OPENAI_API_KEY"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    assert ModelConfig.from_env() is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    config = ModelConfig.from_env(temperature=1.0)
    assert config is not None
    assert config.base_url == "http://127.0.0.1:8000/v1" and config.api_key == "EMPTY"
    assert config.temperature == 1.0
    monkeypatch.setenv("WEBDOJO_MODEL_BASE_URL", "http://127.0.0.1:9000/v1")
    monkeypatch.setenv("WEBDOJO_MODEL", "qwen3-vl")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = ModelConfig.from_env()
    assert config is not None
    assert (config.base_url, config.model, config.api_key) == (
        "http://127.0.0.1:9000/v1", "qwen3-vl", "sk-test")  # fmt: skip
    assert config.redacted()["api_key"] == "***"
    with pytest.raises(TypeError):
        ModelConfig.from_env(nonsense=1)


def test_image_data_url():
    assert image_data_url(b"\xff\xd8", "jpeg") == "data:image/jpeg;base64,/9g="
    assert image_data_url(b"x", "png").startswith("data:image/png;base64,")
    with pytest.raises(ValueError):
        image_data_url(b"x", "gif")


def test_fake_server_is_real_http(fake_openai: FakeOpenAIServer):
    assert fake_openai.base_url.startswith("http://127.0.0.1:")
