"""Importing captures into an archive: the importers' exchanges, written by ArchiveWriter."""

from __future__ import annotations

from pathlib import Path

from webdojo.cache.archive import ArchiveMeta, ArchiveWriter
from webdojo.cache.importing import ImportResult, import_files
from webdojo.errors import ArchiveError


def import_archive(
    files: list[Path], out: Path, overwrite: bool = False
) -> tuple[ImportResult, ArchiveMeta]:
    """Read every file (whole-file errors raise ``ArchiveError``), then write one archive.
    An import that yields no exchange at all writes nothing and says why."""
    result = import_files(files)
    if not result.exchanges:
        reasons = "; ".join(f"{s.file} {s.where}: {s.reason}" for s in result.skipped[:5])
        raise ArchiveError(
            f"no exchange could be imported from {len(files)} file(s)"
            + (f" ({len(result.skipped)} skipped: {reasons})" if reasons else ""),
            skipped=len(result.skipped),
        )
    names = ", ".join(p.name for p in files[:3]) + (" ..." if len(files) > 3 else "")
    with ArchiveWriter(out, source=f"import {names}", overwrite=overwrite) as writer:
        writer.meta.skipped = len(result.skipped)
        for exchange in result.exchanges:
            writer.add(exchange)
    return result, writer.meta
