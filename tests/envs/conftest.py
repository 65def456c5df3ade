"""MiniWoB++ fixtures: the installed package's tasks, their site server, one shared Chromium.

The tests skip, saying what to install, when the ``miniwob`` package is missing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from webdojo.errors import MissingPackage
from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import TaskSet, load_spec


@pytest.fixture(scope="session")
def miniwob() -> TaskSet:
    try:
        return load_spec("miniwob")
    except MissingPackage as exc:
        pytest.skip(f"{exc.message}")


@pytest.fixture(scope="session")
def miniwob_server(miniwob: TaskSet) -> Iterator[SiteServer]:
    with SiteServer(miniwob.sites) as server:
        yield server


@pytest.fixture(scope="session")
async def miniwob_env(miniwob_server: SiteServer) -> AsyncIterator[InProcessEnv]:
    shared = InProcessEnv(miniwob_server)
    yield shared
    await shared.aclose()
