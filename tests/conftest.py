"""Shared test setup: the fake model endpoint fixtures and artifact directory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# tests/ is not a package; make `fakes` importable as a top-level package for the plugin.
sys.path.insert(0, str(Path(__file__).parent))

pytest_plugins = ["fakes.conftest_plugin"]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where tests save screenshots worth looking at (ignored by git, kept by CI logs)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
