"""Fixtures of the hosted environments' tests.

- Offline Wikipedia: ZIM files built with libzim (skipped without it) and the real ZIM files of
  ../shared/data/zim (skipped when that folder is absent).
- MiniWoB++: the installed package's tasks, their site server, one shared Chromium (skipped,
  saying what to install, when the ``miniwob`` package is missing).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from envs_data import REAL_ZIMS, shared

from webdojo.errors import MissingDependency
from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import TaskSet, load_spec


@pytest.fixture(scope="session")
def indexed_zim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test wiki with a full-text index."""
    pytest.importorskip("libzim")
    from zim_build import build_zim

    return build_zim(tmp_path_factory.mktemp("zim") / "test_wiki.zim", fulltext=True)


@pytest.fixture(scope="session")
def titles_zim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test wiki without a full-text index (search by title only)."""
    pytest.importorskip("libzim")
    from zim_build import build_zim

    return build_zim(tmp_path_factory.mktemp("zim") / "test_wiki_titles.zim", fulltext=False)


@pytest.fixture(scope="session")
def wikibooks_zim() -> Path:
    pytest.importorskip("libzim")
    return shared(REAL_ZIMS / "wikibooks_be_all_nopic_2017-02.zim")


@pytest.fixture(scope="session")
def small_zim() -> Path:
    pytest.importorskip("libzim")
    return shared(REAL_ZIMS / "small.zim")


@pytest.fixture(scope="session")
def miniwob() -> TaskSet:
    try:
        return load_spec("miniwob")
    except MissingDependency as exc:
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
