"""Fixtures for the offline-Wikipedia tests: ZIM files built with libzim (skipped without it)
and the real ZIM files of ../shared/data/zim (skipped when that folder is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
REAL_ZIMS = SHARED_DATA / "zim"
NQ_SAMPLE = SHARED_DATA / "qa" / "flashrag_nq_test.jsonl"


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared test data not found: {path} (see ../shared/data/README.md)")
    return path


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
