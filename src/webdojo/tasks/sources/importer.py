"""Import task sets: read each source in its format, convert every record into a ``Task``, and
stream them into one JSONL task file, written atomically.

Each task gets ``source`` = its format's name and the id ``<format>:<the source's id>``, with
every character a Task id may not hold replaced (``webvoyager:BBC_News--0``); duplicates are
found after that, across all sources. Strict by default: the first bad record raises
``TaskFileError`` naming its file, line and field, and no file is written. With
``skip_invalid`` bad records are skipped, and every one is listed in the report with its reason.
Either way nothing is dropped silently, and an empty source is an error.

Tasks are never held in memory together (300k WebGym rows stream through); only their ids are,
to find duplicates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from webdojo.errors import TaskFileError
from webdojo.tasks.loader import BUILTIN
from webdojo.tasks.schema import Task
from webdojo.tasks.sources.base import (
    DUPLICATE_ID,
    INVALID_VALUE,
    MISSING_FIELD,
    WRONG_TYPE,
    Format,
    Opened,
    RawRecord,
    RecordError,
    Where,
    sanitize_id,
)
from webdojo.tasks.sources.builtin import read_builtin
from webdojo.tasks.sources.detect import Detected, detect
from webdojo.tasks.sources.readers import read_records
from webdojo.tasks.task_file import bulk, write_tasks

PROGRESS_EVERY = 2000  # records between progress callbacks


@dataclass(frozen=True)
class Skipped:
    """A record left out, where it is, and why (``reason`` is one of base.py's reasons)."""

    where: str
    reason: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"where": self.where, "reason": self.reason, "detail": self.detail}


@dataclass
class SourceReport:
    source: str
    format: str
    why: str  # how the format was chosen
    tasks: int = 0
    skipped: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "detected_by": self.why,
            "tasks": self.tasks,
            "skipped": self.skipped,
            "notes": self.notes,
        }


@dataclass
class ImportReport:
    out: str
    sources: list[SourceReport] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def tasks(self) -> int:
        return sum(s.tasks for s in self.sources)

    @property
    def formats(self) -> str:
        """The formats read, in source order, each once, comma-joined (``webvoyager,qa``)."""
        return ",".join(dict.fromkeys(s.format for s in self.sources))

    def reasons(self) -> dict[str, int]:
        """Skipped records per reason, most frequent first."""
        return dict(Counter(s.reason for s in self.skipped).most_common())

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "skipped": len(self.skipped),
            "format": self.formats,
            "out": self.out,
            "reasons": self.reasons(),
            "sources": [s.to_json() for s in self.sources],
        }


Progress = Callable[[int], None]  # called with the number of records read so far


def import_tasks(
    sources: list[str],
    out: Path,
    fmt: str | None = None,
    skip_invalid: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``sources`` (files, or ``builtin``) into the task file ``out``; see the module
    docstring. Every source's format is settled before any record is read."""
    if not sources:
        raise TaskFileError("no sources to import")
    detected = [(source, detect(source, fmt)) for source in sources]
    run = _Run(ImportReport(out=str(out)), skip_invalid, progress)
    with bulk():
        write_tasks(out, run.all_tasks(detected))
    return run.report


@dataclass
class _Run:
    report: ImportReport
    skip_invalid: bool
    progress: Progress | None
    first_seen: dict[str, Where] = field(default_factory=dict)
    records: int = 0

    def all_tasks(self, detected: list[tuple[str, Detected]]) -> Iterator[Task]:
        for source, found in detected:
            yield from self.source_tasks(source, found)
        if self.report.tasks == 0:
            raise TaskFileError(
                f"no task could be imported: all {len(self.report.skipped)} records were "
                f"skipped ({', '.join(f'{k}: {n}' for k, n in self.report.reasons().items())})"
            )

    def source_tasks(self, source: str, found: Detected) -> Iterator[Task]:
        summary = SourceReport(source, found.format.name, found.reason)
        self.report.sources.append(summary)
        opened = found.format.open(Path(source))
        if found.kind == BUILTIN:
            records = read_builtin()
        else:
            records = read_records(Path(source), found.kind)
        count = 0
        for record in records:
            count += 1
            self.tick()
            try:
                task = to_task(record, found.format, opened)
                self.claim(task.id, record.where)
            except RecordError as exc:
                self.problem(record.where, exc)
                summary.skipped += 1
                continue
            summary.tasks += 1
            yield task
        if count == 0:
            raise TaskFileError(f"{source}: empty file (no records)")
        summary.notes = opened.notes()

    def tick(self) -> None:
        self.records += 1
        if self.progress is not None and self.records % PROGRESS_EVERY == 0:
            self.progress(self.records)

    def claim(self, task_id: str, where: Where) -> None:
        first = self.first_seen.get(task_id)
        if first is not None:
            raise RecordError(DUPLICATE_ID, f"duplicate id {task_id!r} (first at {first})", "id")
        self.first_seen[task_id] = where

    def problem(self, where: Where, exc: RecordError) -> None:
        if not self.skip_invalid:
            raise TaskFileError(
                f"{where}: {exc.describe()} ({exc.kind})",
                where=str(where),
                field=exc.field,
                reason=exc.kind,
            )
        self.report.skipped.append(Skipped(str(where), exc.kind, exc.describe()))


def to_task(record: RawRecord, fmt: Format, opened: Opened) -> Task:
    """One raw record as a validated Task; RecordError names the source's field."""
    if record.error is not None:
        raise record.error
    converted = opened.convert(record)
    fields = converted.fields
    raw_id = converted.source_id
    fields["id"] = sanitize_id(f"{fmt.name}:{raw_id}" if fmt.prefix_ids else raw_id)
    fields["source"] = fmt.name
    try:
        return Task.model_validate(fields)
    except ValidationError as exc:
        raise schema_error(exc, fmt) from None


def schema_error(exc: ValidationError, fmt: Format) -> RecordError:
    """The first schema problem, named by the source's field where it has its own name."""
    first = exc.errors()[0]
    loc = [str(p) for p in first["loc"]]
    path = ".".join(loc) or "(record)"
    source_name = fmt.field_names.get(loc[0]) if loc else None
    name = f"{source_name} ({path})" if source_name and source_name != path else path
    kind = first["type"]
    if kind == "missing":
        reason = MISSING_FIELD
    elif kind.endswith("_type") or kind.endswith("_parsing"):
        reason = WRONG_TYPE
    else:
        reason = INVALID_VALUE
    message = first["msg"].removeprefix("Value error, ")
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return RecordError(reason, message + more, name)
