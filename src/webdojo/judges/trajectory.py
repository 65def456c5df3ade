"""What a judge reads: one stored episode attempt with its task, steps and screenshots.

Judges never drive a browser and never parse run files: a ``Trajectory`` is built from the
typed records of ``webdojo.store`` and the task set the run used. It says what is missing
(``missing``) instead of letting a judge score an incomplete record 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import StoredRun
from webdojo.store.run_store import STEPS
from webdojo.tasks.schema import Task


@dataclass(frozen=True)
class Shot:
    """One screenshot of the trajectory and the step it belongs to."""

    step: int  # the step whose observation it is; len(steps) for the final page
    path: str  # relative to the run directory (content-addressed: the name is its hash)


@dataclass(frozen=True)
class Trajectory:
    run: Path  # the run directory
    record: EpisodeRecord  # the attempt's episode record
    steps: list[StepRecord]  # its steps, in order
    task: Task | None  # None when the run's task set no longer has the task

    @property
    def key(self) -> str:
        return self.record.key

    @property
    def answer(self) -> str | None:
        return self.record.answer

    @cached_property
    def shots(self) -> list[Shot]:
        """Every distinct screenshot in order: each step's observation, then the page after the
        last step (``step == len(steps)``). A page the action left unchanged appears once."""
        shots: list[Shot] = []
        for step in self.steps:
            for index, path in (
                (step.step, step.screenshot),
                (step.step + 1, step.next_screenshot),
            ):
                if path and (not shots or shots[-1].path != path):
                    shots.append(Shot(index, path))
        return shots

    def image(self, shot: Shot) -> bytes:
        """The screenshot's bytes; raises OSError when the file is gone."""
        return (self.run / shot.path).read_bytes()

    def image_format(self, shot: Shot) -> str:
        return Path(shot.path).suffix.lstrip(".") or "jpeg"

    def missing(self, *, screenshots: bool = False) -> list[str]:
        """What this trajectory lacks for a judge (one that needs ``screenshots``, say): one
        line per problem, empty when it is complete. (A missing answer is the agent's
        failure, not missing input.)"""
        problems: list[str] = []
        if self.task is None:
            problems.append(f"task {self.record.task_id!r} is not in the run's task set")
        if self.record.steps and not self.steps:
            problems.append(f"the {self.record.steps} steps of {self.key} are not in {STEPS}")
        if screenshots:
            if not self.shots:
                problems.append("the trajectory has no screenshots")
            gone = [s.path for s in self.shots if not (self.run / s.path).is_file()]
            if gone:
                problems.append(f"{len(gone)} screenshot file(s) missing, e.g. {gone[0]}")
        return problems


def trajectories(run: StoredRun, tasks: dict[str, Task]) -> Iterator[Trajectory]:
    """Every finished episode attempt of ``run``, in file order, with its task."""
    for key, record in run.episodes.items():
        yield Trajectory(run.root, record, run.steps_of(key), tasks.get(record.task_id))
