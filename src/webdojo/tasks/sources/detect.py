"""Tell a task-set file's format from its extension and the keys of its first records.

The file kind comes from the extension (``.jsonl``, ``.json``, ``.csv``, ``.parquet``); the
format from the first readable record's keys, matched against each format's ``keys`` (all
present) and ``excludes`` (none present). ``--format`` skips the guess. An empty file, or one
whose records match no format, is an error that lists the known formats.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from webdojo.errors import TaskFileError
from webdojo.tasks.loader import BUILTIN
from webdojo.tasks.sources import webvoyager
from webdojo.tasks.sources.base import Format
from webdojo.tasks.sources.readers import KINDS, kind_of, read_records
from webdojo.tasks.sources.registry import FORMATS, get_format

PEEK = 20  # records to look at when the first ones are broken


@dataclass(frozen=True)
class Detected:
    format: Format
    kind: str  # the file kind, or "builtin"
    reason: str  # how it was chosen, for the user


def detect(source: str, forced: str | None = None) -> Detected:
    """The format of ``source`` (a file, or ``builtin``); ``forced`` names it instead."""
    if source == BUILTIN:
        return Detected(get_format(forced or BUILTIN), BUILTIN, "the built-in sites")
    path = Path(source)
    if not path.is_file():
        raise TaskFileError(f"{source}: no such file")
    kind = kind_of(path)
    if kind is None:
        raise TaskFileError(
            f"{source}: unknown file kind {path.suffix or '(no extension)'!r}; task sets are "
            f"read from {', '.join('.' + k for k in KINDS)} files (known formats: {_listing()})"
        )
    if forced is not None:
        chosen = get_format(forced)
        if next(read_records(path, kind), None) is None:
            raise TaskFileError(f"{path}: empty file (no records)")
        return Detected(chosen, kind, "given with --format")
    first = first_record(path, kind)
    for fmt in FORMATS.values():
        if fmt.keys and fmt.matches(set(first)):
            return Detected(fmt, kind, f"its records have {', '.join(sorted(fmt.keys))}")
    raise TaskFileError(_no_match(path, first))


def first_record(path: Path, kind: str) -> dict[str, Any]:
    """The first readable record; TaskFileError for a file with none."""
    peeked = list(islice(read_records(path, kind), PEEK))
    if not peeked:
        raise TaskFileError(f"{path}: empty file (no records)")
    for record in peeked:
        if record.data is not None:
            return record.data
    first = peeked[0]
    error = first.error
    problem = f"{error.describe()} ({error.kind}" if error else "unreadable ("
    raise TaskFileError(
        f"{first.where}: {problem}; none of the first {len(peeked)} records can be read)"
    )


def _no_match(path: Path, first: dict[str, Any]) -> str:
    if first and all(isinstance(v, dict) and "answers" in v for v in first.values()):
        return (
            f"{path}: this is WebVoyager's answer file ({webvoyager.ANSWERS_FILE}); import "
            "WebVoyager_data.jsonl, which reads it from the same directory"
        )
    keys = sorted(first)
    shown = ", ".join(keys[:12]) + (" ..." if len(keys) > 12 else "")
    return (
        f"{path}: cannot tell the format: its first record has keys [{shown}]; known "
        f"formats: {_listing()}; name one with --format"
    )


def _listing() -> str:
    """Each format with the keys that identify it and the file kinds it comes in."""
    return "; ".join(
        f"{f.name} ({', '.join(sorted(f.keys))} in {'/'.join('.' + k for k in f.kinds)})"
        if f.keys
        else f"{f.name} (the SOURCE '{f.name}')"
        for f in FORMATS.values()
    )
