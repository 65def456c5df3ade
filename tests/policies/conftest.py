"""Fixtures for policy tests (the builders live in policy_builders.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from policy_builders import make_obs, make_task

from webdojo.observation import Observation
from webdojo.tasks.schema import Task


@pytest.fixture
def task() -> Task:
    return make_task()


@pytest.fixture
def obs_factory() -> Callable[..., Observation]:
    return make_obs
