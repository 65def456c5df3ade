"""The rollout progress bar of ``webdojo run`` and ``webdojo eval``: episodes done, successes
among scored episodes, faults apart (never counted as failures)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from webdojo.store.records import EpisodeRecord


class EpisodeProgress:
    """One bar; ``start`` announces a pass (episodes to run, episodes kept from before)."""

    def __init__(self, progress: Progress, console: Console, out: str) -> None:
        self._progress = progress
        self._console = console
        self._out = out
        self._bar = progress.add_task("episodes", total=None, ok=0, scored=0, faults=0, what="")
        self._ok = self._scored = self._faults = 0

    def start(self, todo: int, kept: int, what: str = "") -> None:
        self._progress.update(self._bar, total=todo, completed=0, what=what)
        if kept:
            self._console.print(f"resuming {self._out}: {kept} episodes already finished")

    def episode(self, record: EpisodeRecord) -> None:
        if record.success is None:
            self._faults += 1
        else:
            self._scored += 1
            self._ok += bool(record.success)
        self._progress.update(
            self._bar, advance=1, ok=self._ok, scored=self._scored, faults=self._faults
        )


@contextmanager
def episode_progress(
    console: Console, out: str, label: str = "rollout"
) -> Iterator[EpisodeProgress]:
    columns = (
        TextColumn(f"[bold]{label}[/bold]{{task.fields[what]}}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("success {task.fields[ok]}/{task.fields[scored]}  faults {task.fields[faults]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        yield EpisodeProgress(progress, console, out)
