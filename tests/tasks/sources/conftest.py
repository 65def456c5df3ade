"""Fixtures for the task-set importers: the real public files in ``<repo>/../shared/data``."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


@pytest.fixture(scope="session")
def data() -> Path:
    """The shared data folder; tests that need it skip when it is absent."""
    if not (SHARED / "tasks").is_dir():
        pytest.skip(f"the real task sets are not here: {SHARED.resolve()} (see its README.md)")
    return SHARED.resolve()
