"""The public test data that is not in the repository: ``../shared/data`` beside the checkout,
or the folder ``$WEBDOJO_SHARED_DATA`` names. docs/how-to/test-data.md says which tests need
which file and where each comes from.

A test asks for a file with ``shared_file("qa/flashrag_nq_test.jsonl")``; when the file is not
there, the test is skipped with a message that names it. A plain module (not conftest) so test
files import it by name.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("WEBDOJO_SHARED_DATA") or ROOT.parent / "shared" / "data")
WHERE_FROM = "docs/how-to/test-data.md"


def shared_file(rel: str) -> Path:
    """``SHARED_DATA / rel`` (a file or a folder), or a skip that names it."""
    path = SHARED_DATA / rel
    if not path.exists():
        pytest.skip(
            f"needs the public test file {rel} (not found at {path}; it is not in the "
            f"repository: see {WHERE_FROM})"
        )
    return path
