"""Pytest fixtures for the fake OpenAI endpoint. Register from the top-level conftest with
``pytest_plugins = ["fakes.conftest_plugin"]`` (see the policies report)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webdojo.models import ModelConfig

from .openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def fake_openai_session() -> Iterator[FakeOpenAIServer]:
    """One server for the whole run (starting uvicorn costs ~0.1 s)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_openai(fake_openai_session: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The shared server with an empty queue and no recorded requests."""
    fake_openai_session.reset()
    yield fake_openai_session
    fake_openai_session.reset()


@pytest.fixture
def fake_model_config(fake_openai: FakeOpenAIServer) -> ModelConfig:
    """A config pointing at the fake server: short timeout, fast retries."""
    return ModelConfig(
        base_url=fake_openai.base_url,
        model=fake_openai.model,
        timeout_s=5.0,
        max_retries=2,
        backoff_s=0.01,
        backoff_max_s=0.05,
    )
