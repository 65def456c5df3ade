"""Reading a run directory for people: whatever is there, plus a list of what is not.

A run directory may be complete, still being written, interrupted (truncated last lines, steps
of episodes that never finished), or written by an older version. ``load_run`` never raises
for any of these: it returns what it could read and says in ``RunData.problems`` what is
missing, so that the viewer and the report can show the rest.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.errors import RecordSchemaError
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_config import CONFIG, RunConfigRecord, read_config
from webdojo.store.run_reader import StoredRun, read_run
from webdojo.store.run_store import EPISODES, FORMAT_VERSION, SCREENSHOTS, STEPS
from webdojo.store.verdicts import VERDICTS, Verdict, judges_of


@dataclass(frozen=True)
class TaskInfo:
    """What the viewer shows about a task (from the task set named in config.json)."""

    instruction: str
    site: str
    difficulty: int | None
    level: str
    facts: list[str]  # the rubric's facts, flattened
    max_steps: int
    domain: str | None = None  # the Mind2Web-2 domain, when the task set has one


@dataclass
class RunData:
    root: Path
    config: RunConfigRecord | None  # None when the run's config is missing or unreadable
    problems: list[str] = field(default_factory=list)  # what is missing, for people
    records: StoredRun | None = None  # the typed records (None: nothing readable)
    missing_files: set[str] = field(default_factory=set)  # screenshots referenced, not on disk
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    verdicts: dict[str, dict[str, Verdict]] = field(default_factory=dict)  # judge -> key -> v

    @property
    def name(self) -> str:
        return self.root.name or str(self.root)

    @property
    def format_version(self) -> int | None:
        return None if self.config is None else self.config.format_version

    @property
    def viewport(self) -> tuple[int, int]:
        return _viewport(None if self.config is None else self.config.viewport)

    @property
    def episodes(self) -> dict[str, EpisodeRecord]:
        """Episode key -> its latest record."""
        return {} if self.records is None else self.records.episodes

    @property
    def unfinished(self) -> dict[str, str]:
        """Episode key -> the id of an attempt that never ended (no record yet)."""
        return {} if self.records is None else self.records.unfinished

    @property
    def superseded(self) -> int:
        return 0 if self.records is None else self.records.superseded

    def steps_of(self, key: str) -> list[StepRecord]:
        """The steps shown for an episode: its finished attempt's, else the unended one's."""
        if self.records is None:
            return []
        if key in self.records.episodes:
            return self.records.steps_of(key)
        return self.records.unfinished_steps(key)

    def all_steps(self) -> list[StepRecord]:
        return [s for key in [*self.episodes, *self.unfinished] for s in self.steps_of(key)]


def load_run(root: Path) -> RunData:
    """Everything readable in a run directory; see the module docstring."""
    root = Path(root)
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        return RunData(root=root, config=None, problems=[f"the run directory {root} {what}"])
    problems: list[str] = []
    run = RunData(root=root, config=_read_config(root, problems), problems=problems)
    if not any((root / name).exists() for name in (CONFIG, STEPS, EPISODES)):
        problems.append(f"{root} holds no {CONFIG}, {STEPS} or {EPISODES}: is it a run directory?")
        return run
    _check_files(run)
    try:
        run.records = read_run(root)
    except RecordSchemaError as exc:  # a newer schema_version: never guess at its meaning
        problems.append(f"the records cannot be read: {exc}")
        return run
    except OSError as exc:  # e.g. a directory where a JSONL file should be, no permission
        problems.append(f"the records cannot be read ({exc})")
        return run
    _note_records(run, run.records)
    run.missing_files = _missing_screenshots(run)
    if run.missing_files:
        problems.append(f"{len(run.missing_files)} screenshots named in {STEPS} are missing")
    run.tasks, task_problem = load_tasks(None if run.config is None else run.config.tasks)
    if task_problem:
        problems.append(task_problem)
    try:
        run.verdicts = judges_of(root)
    except (RecordSchemaError, OSError) as exc:
        problems.append(f"the judges' verdicts cannot be read: {exc}")
    return run


def _read_config(root: Path, problems: list[str]) -> RunConfigRecord | None:
    config = read_config(root, problems)
    if config is None:
        return None
    version = config.format_version
    if version is None or not 1 <= version <= FORMAT_VERSION:
        told = "no format_version" if version is None else f"format version {version!r}"
        problems.append(
            f"{CONFIG} has {told}; this viewer reads versions 1-{FORMAT_VERSION} "
            "and shows what it can"
        )
    return config


def _check_files(run: RunData) -> None:
    for name, why in (
        (STEPS, "no step records: trajectories cannot be shown"),
        (EPISODES, "no episode has finished yet (or the run was interrupted before the first)"),
    ):
        if not (run.root / name).exists():
            run.problems.append(f"no {name}: {why}")
    if not (run.root / SCREENSHOTS).is_dir():
        run.problems.append(f"no {SCREENSHOTS}/ directory: screenshots cannot be shown")


def _note_records(run: RunData, records: StoredRun) -> None:
    """What the reader skipped or set apart, for people."""
    for name, skipped in records.skipped.items():
        run.problems.append(f"{name}: {skipped} unreadable line(s) skipped (an interrupted write)")
    if records.invalid:
        shown = "; ".join(records.invalid[:3])
        more = f" (and {len(records.invalid) - 3} more)" if len(records.invalid) > 3 else ""
        run.problems.append(f"{len(records.invalid)} invalid record(s) skipped: {shown}{more}")
    if records.superseded:
        run.problems.append(
            f"{records.superseded} earlier attempt(s) of episodes that were run again on resume "
            "(interrupted, or lost to a fault) are not shown"
        )
    if records.unfinished:
        run.problems.append(
            f"{len(records.unfinished)} episode(s) never finished (the run was interrupted "
            "or is still going): their steps are shown, without a verdict"
        )
    no_steps = [k for k, r in records.episodes.items() if r.steps and not records.steps_of(k)]
    if no_steps:
        run.problems.append(f"{len(no_steps)} finished episode(s) have no step records")


def _missing_screenshots(run: RunData) -> set[str]:
    named = {
        rel
        for step in run.all_steps()
        for rel in (step.screenshot, step.next_screenshot)
        if rel is not None
    }
    shots = run.root / SCREENSHOTS
    on_disk = {f"{SCREENSHOTS}/{p.parent.name}/{p.name}" for p in shots.glob("*/*")}
    return {rel for rel in named - on_disk if safe_path(run.root, rel) is None}


def safe_path(root: Path, rel: str) -> Path | None:
    """The file ``rel`` names inside ``root``, or None if it is not a regular file inside it
    (``..``, absolute paths, symlinks leading out, directories, NUL bytes)."""
    if not rel or "\x00" in rel:
        return None
    try:
        base = root.resolve()
        candidate = (base / rel).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if not candidate.is_relative_to(base) or not candidate.is_file():
        return None
    return candidate


@functools.lru_cache(maxsize=8)
def load_tasks(spec: Any) -> tuple[dict[str, TaskInfo], str | None]:
    """Task id -> TaskInfo for the task set a run names, and a problem line if it failed."""
    if not isinstance(spec, str) or not spec:
        return {}, None if spec is None else f"{CONFIG} names no task set"
    try:
        from webdojo.tasks.loader import load_spec

        task_set = load_spec(spec)
    except Exception as exc:
        return {}, f"the task set {spec!r} could not be loaded ({exc}): instructions not shown"
    return {
        task.id: TaskInfo(
            instruction=task.instruction,
            site=task.website or "",
            difficulty=task.difficulty,
            level=task.level or "unknown",
            facts=task.facts(),
            max_steps=task.max_steps,
            domain=task.domain,
        )
        for task in task_set.tasks
    }, None


def _viewport(value: Any) -> tuple[int, int]:
    if isinstance(value, list | tuple) and len(value) == 2:
        w, h = value
        if isinstance(w, int | float) and isinstance(h, int | float) and w > 0 and h > 0:
            return int(w), int(h)
    return 1280, 720


class LiveRun:
    """A run directory that may still be growing: reloaded when its files change."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._signature: tuple[Any, ...] | None = None
        self._data: RunData | None = None
        self._lock = threading.Lock()  # requests are served from a thread pool

    def _stat(self) -> tuple[Any, ...]:
        sig: list[Any] = []
        verdicts = [  # a judge may be writing verdicts (its reply cache does not count)
            p
            for p in sorted((self.root / VERDICTS).glob("*.jsonl"))
            if not p.name.endswith(".calls.jsonl")
        ]
        for path in [self.root / CONFIG, self.root / STEPS, self.root / EPISODES, *verdicts]:
            try:
                st = path.stat()
                sig.append((path.name, st.st_size, st.st_mtime_ns))
            except OSError:
                sig.append(None)
        return tuple(sig)

    def version(self) -> str:
        """A token that changes whenever the run's files do: the front end polls it to
        refresh a page while the run is still being written."""
        return hashlib.sha1(repr(self._stat()).encode()).hexdigest()[:16]

    def get(self) -> RunData:
        with self._lock:
            signature = self._stat()
            if self._data is None or signature != self._signature:
                self._data = load_run(self.root)
                self._signature = signature
            return self._data
