"""Where the hosted environments' tests find the shared real data (``shared_data.py``), and a
skip naming the file when it is absent. A plain module (not conftest) so test files can import
it by name."""

from __future__ import annotations

from pathlib import Path

from shared_data import SHARED_DATA, shared_file

REAL_ZIMS = SHARED_DATA / "zim"
NQ_SAMPLE = SHARED_DATA / "qa" / "flashrag_nq_test.jsonl"


def shared(path: Path) -> Path:
    return shared_file(path.relative_to(SHARED_DATA).as_posix())
