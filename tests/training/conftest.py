"""Runs shared by the context and export tests (browser runs are slow: each is made once)."""

from __future__ import annotations

from pathlib import Path

import pytest
from export_runs import ModelRun, model_run, scripted_run

from fakes.openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scripted policy on 3 login tasks (the run's config names no template: qwen)."""
    return scripted_run(tmp_path_factory.mktemp("scripted") / "run")


@pytest.fixture(scope="session")
def webgym_run(
    tmp_path_factory: pytest.TempPathFactory, scripted: Path, fake_openai_session: FakeOpenAIServer
) -> ModelRun:
    """The openai policy with webgym_memory and 2 images per prompt, so that older steps
    become text lines and the memory fields grow."""
    out = tmp_path_factory.mktemp("webgym") / "run"
    return model_run(out, scripted, fake_openai_session, "webgym_memory", max_images=2)


@pytest.fixture(scope="session")
def browseragent_run(
    tmp_path_factory: pytest.TempPathFactory, scripted: Path, fake_openai_session: FakeOpenAIServer
) -> ModelRun:
    """The openai policy with browseragent: accessibility tree, <conclusion> memory."""
    out = tmp_path_factory.mktemp("browseragent") / "run"
    return model_run(out, scripted, fake_openai_session, "browseragent")
