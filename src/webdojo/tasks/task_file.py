"""Task files at scale: stream them in and write them out (JSONL, one ``Task`` per line).

A task set may hold 300k tasks. Reading holds one line at a time and writing goes through a
temporary file renamed into place, so a killed process never leaves half a file. Building
hundreds of thousands of small objects makes CPython's cyclic collector rescan all of them again
and again (3x slower here); ``bulk()`` pauses it, since task objects never form cycles.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from webdojo.errors import TaskFileError
from webdojo.tasks.schema import Task


@contextlib.contextmanager
def bulk() -> Iterator[None]:
    """Pause the cyclic garbage collector while many acyclic objects are built."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield number, line
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc


def iter_tasks(path: Path) -> Iterator[Task]:
    """Every task of a JSONL task file, validated; the first bad line raises TaskFileError
    naming the file, the line and the field."""
    for number, line in iter_lines(path):
        try:
            yield Task.model_validate_json(line)
        except ValidationError as exc:
            raise TaskFileError(f"{path}:{number}: {describe(exc)}") from exc


def describe(exc: ValidationError) -> str:
    """The first problem of a validation error as ``field: message (+k more)``."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "(root)"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{loc}: {first['msg']}{more}"


def write_tasks(path: Path, tasks: Iterable[Task]) -> int:
    """Write ``tasks`` as JSONL, atomically; returns how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            for task in tasks:
                handle.write(task.model_dump_json())
                handle.write("\n")
                count += 1
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return count
