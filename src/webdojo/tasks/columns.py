"""A task file as compact columns, for the commands that look at a whole set (split, stats,
sample) without holding 300k ``Task`` objects (each is kilobytes; the columns are tens of bytes
a task).

Every line is still validated into a ``Task`` (a bad file fails with the file, line and field),
then only what the set-level commands need is kept. Repeated strings (site keys, levels,
sources, domains) are interned, so a million tasks on a few sites cost one string per site.
Outputs are written by copying the chosen lines (``copy_lines``) or by validating only them
again (``iter_tasks_at``), so the tasks come out byte for byte as they went in.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from webdojo.errors import TaskFileError
from webdojo.tasks.schema import Task
from webdojo.tasks.task_file import bulk, describe, iter_lines
from webdojo.tasks.websites import site_key_of

Progress = Callable[[int], None]  # called now and then with the characters read so far
PROGRESS_EVERY = 5000  # lines


def _intern(value: str | None) -> str | None:
    return None if value is None else sys.intern(value)


@dataclass
class TaskColumns:
    """One entry per task, in file order; ``lines[i]`` is task i's line number (1-based)."""

    path: Path
    ids: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)
    levels: list[str | None] = field(default_factory=list)
    difficulties: list[int | None] = field(default_factory=list)
    parents: list[str | None] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    domains: list[str | None] = field(default_factory=list)
    subdomains: list[str | None] = field(default_factory=list)
    instructions: list[str] | None = None  # kept only when asked (near-duplicate checks)

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, number: int, task: Task) -> None:
        self.ids.append(task.id)
        self.lines.append(number)
        self.sites.append(sys.intern(site_key_of(task.website, task.start_url)))
        self.levels.append(_intern(task.level))
        self.difficulties.append(task.difficulty)
        self.parents.append(task.parent_id)
        self.sources.append(sys.intern(task.source))
        self.domains.append(_intern(task.domain))
        self.subdomains.append(_intern(task.subdomain))
        if self.instructions is not None:
            self.instructions.append(task.instruction)


def read_columns(
    path: Path, *, instructions: bool = False, progress: Progress | None = None
) -> TaskColumns:
    """Validate every task of a JSONL task file and keep its columns. Raises TaskFileError for
    a bad line or a task id given twice (naming both lines)."""
    path = Path(path)
    columns = TaskColumns(path=path, instructions=[] if instructions else None)
    first_line: dict[str, int] = {}
    read = 0
    with bulk():
        for number, line in iter_lines(path):
            try:
                task = Task.model_validate_json(line)
            except ValidationError as exc:
                raise TaskFileError(f"{path}:{number}: {describe(exc)}") from exc
            seen = first_line.setdefault(task.id, number)
            if seen != number:
                raise TaskFileError(
                    f"{path}:{number}: id: {task.id!r} is already the id of line {seen}"
                )
            columns.add(number, task)
            read += len(line)
            if progress is not None and len(columns) % PROGRESS_EVERY == 0:
                progress(read)
    if progress is not None:
        progress(read)
    return columns


def copy_lines(
    source: Path, targets: dict[int, Path], route: Callable[[int], int]
) -> dict[int, int]:
    """Copy each line of ``source`` to ``targets[route(line_number)]`` (a route not in
    ``targets`` drops the line), every target written atomically. Returns lines per target."""
    tmps = {k: p.with_name(f".{p.name}.{os.getpid()}.tmp") for k, p in targets.items()}
    counts = dict.fromkeys(targets, 0)
    handles = {}
    try:
        for key, tmp in tmps.items():
            tmp.parent.mkdir(parents=True, exist_ok=True)
            handles[key] = tmp.open("w", encoding="utf-8")
        for number, line in iter_lines(source):
            key = route(number)
            handle = handles.get(key)
            if handle is not None:
                handle.write(line if line.endswith("\n") else line + "\n")
                counts[key] += 1
        for key, handle in handles.items():
            handle.close()
            tmps[key].replace(targets[key])
    finally:
        for handle in handles.values():
            handle.close()
        for tmp in tmps.values():
            tmp.unlink(missing_ok=True)
    return counts


def iter_tasks_at(path: Path, numbers: Iterable[int]) -> Iterator[Task]:
    """The tasks on the given line numbers, in file order, validated again."""
    wanted = set(numbers)
    with bulk():
        for number, line in iter_lines(path):
            if number in wanted:
                try:
                    yield Task.model_validate_json(line)
                except ValidationError as exc:  # the file changed since it was read
                    raise TaskFileError(f"{path}:{number}: {describe(exc)}") from exc
