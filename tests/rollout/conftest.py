"""Fixtures for rollout tests: the built-in task set, its site server, one shared Chromium."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import TaskSet, load_spec


@pytest.fixture(scope="session")
def builtin() -> TaskSet:
    return load_spec("builtin")


@pytest.fixture(scope="session")
def site_server(builtin: TaskSet) -> Iterator[SiteServer]:
    with SiteServer(builtin.sites) as server:
        yield server


@pytest.fixture(scope="session")
async def env(site_server: SiteServer) -> AsyncIterator[InProcessEnv]:
    """One browser for all rollout tests; every episode still gets a fresh context."""
    shared = InProcessEnv(site_server)
    yield shared
    await shared.aclose()
