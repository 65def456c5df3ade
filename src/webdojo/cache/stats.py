"""``webdojo cache stats``: what an archive holds and how its last replay went."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.cache.archive import Archive, read_last_replay


def archive_stats(path: Path) -> dict[str, Any]:
    with Archive.open(path) as archive:
        hosts = archive.index.hosts()
        meta = archive.meta
        learned = len(archive.rules.learned())
    return {
        "archive": str(path),
        "entries": sum(n for _, n, _ in hosts),
        "hosts": [{"host": h, "entries": n, "bytes": b} for h, n, b in hosts],
        "bytes": sum(b for _, _, b in hosts),
        "visits": meta.visits,
        "source": meta.source,
        "learned_rules": learned,
        "last_replay": read_last_replay(path),
    }
