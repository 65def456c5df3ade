"""Where the hosted environments' tests find the shared real data (../shared/data), and a
skip when it is absent. A plain module (not conftest) so test files can import it by name."""

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
