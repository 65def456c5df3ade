"""Reading a run directory back as typed records: the only reader of its JSONL files.

    run = read_run(Path("runs/demo"))
    for record in run.episodes.values():        # the latest attempt of each episode key
        steps = run.steps_of(record.key)        # that attempt's steps, in order

What a reader sees, whatever state the directory is in:

* ``episodes``: the last record of each episode key (a resumed run appends a newer one);
* ``steps_of(key)`` / ``finished_steps()``: steps of finished attempts only. Steps of an
  attempt cut off by an interrupt or superseded by a resume are never mixed in, so later
  stages never count them; they are in ``unfinished`` (the latest unended attempt of a key
  that has no record yet) and counted in ``superseded``;
* a truncated or undecodable line (an interrupted write) is skipped and counted in
  ``skipped``; a line that does not match the record model is skipped and described in
  ``invalid`` (``strict=True`` raises ``RecordSchemaError`` instead);
* a line of a newer schema than this webdojo reads always raises ``RecordSchemaError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from webdojo.errors import RecordSchemaError
from webdojo.store.records import EpisodeRecord, StepRecord, parse_episode, parse_step
from webdojo.store.run_store import EPISODES, STEPS

R = TypeVar("R", StepRecord, EpisodeRecord)
T = TypeVar("T")


@dataclass
class StoredRun:
    """The records of one run directory (see the module docstring)."""

    root: Path
    episodes: dict[str, EpisodeRecord] = field(default_factory=dict)  # key -> latest record
    attempts: dict[str, list[StepRecord]] = field(default_factory=dict)  # uid -> its steps
    unfinished: dict[str, str] = field(default_factory=dict)  # key -> uid of an unended attempt
    superseded: int = 0  # attempts replaced by a later attempt of the same key
    skipped: dict[str, int] = field(default_factory=dict)  # file -> undecodable lines
    invalid: list[str] = field(default_factory=list)  # lines that do not match the models

    def steps_of(self, key: str) -> list[StepRecord]:
        """The steps of the episode's finished attempt (empty when it has none)."""
        record = self.episodes.get(key)
        if record is None or record.episode is None:
            return []
        return self.attempts.get(record.episode, [])

    def unfinished_steps(self, key: str) -> list[StepRecord]:
        """The steps of an attempt that never ended (no episode record for its key)."""
        uid = self.unfinished.get(key)
        return [] if uid is None else self.attempts.get(uid, [])

    def finished_steps(self) -> Iterator[StepRecord]:
        """Every step of every finished episode, episode by episode."""
        for key in self.episodes:
            yield from self.steps_of(key)


def read_run(root: Path, *, strict: bool = False) -> StoredRun:
    """The typed records of a run directory; see the module docstring."""
    run = StoredRun(root=Path(root))
    run.episodes = {
        rec.key: rec for rec in _read(run, EPISODES, parse_episode, strict)
    }  # later lines win
    key_of: dict[str, str] = {}
    for step in _read(run, STEPS, parse_step, strict):
        run.attempts.setdefault(step.episode, []).append(step)
        key_of.setdefault(step.episode, step.key)
    for steps in run.attempts.values():
        steps.sort(key=lambda s: s.step)
    _sort_attempts(run, key_of)
    return run


def read_episodes(root: Path) -> dict[str, EpisodeRecord]:
    """The latest episode record of each key (no steps read)."""
    run = StoredRun(root=Path(root))
    return {rec.key: rec for rec in _read(run, EPISODES, parse_episode, False)}


def finished_keys(root: Path) -> set[str]:
    """Episode keys a resumed run skips: every episode that was scored. Faulted episodes
    (env or infra) were never scored, so a resume runs them again."""
    return {key for key, rec in read_episodes(root).items() if rec.fault is None}


def _sort_attempts(run: StoredRun, key_of: dict[str, str]) -> None:
    """Which attempts are finished, unfinished (latest unended one) or superseded."""
    finished = {rec.episode for rec in run.episodes.values()}
    for uid, key in key_of.items():  # file order: a later attempt replaces an earlier one
        if uid in finished:
            continue
        if key in run.episodes or key in run.unfinished:
            run.superseded += 1
        if key not in run.episodes:
            run.unfinished[key] = uid
    for uid in set(run.attempts) - finished - set(run.unfinished.values()):
        del run.attempts[uid]  # superseded: never shown, never counted


def _read(run: StoredRun, name: str, parse: Callable[[str], R], strict: bool) -> Iterator[R]:
    def cut() -> None:
        run.skipped[name] = run.skipped.get(name, 0) + 1  # an interrupted write

    yield from read_lines(run.root / name, parse, cut=cut, invalid=run.invalid, strict=strict)


def read_lines(
    path: Path,
    parse: Callable[[str], T],
    *,
    cut: Callable[[], None] | None = None,
    invalid: list[str] | None = None,
    strict: bool = False,
) -> Iterator[T]:
    """The records of one append-only JSONL file, in order (none when it does not exist).
    A line cut short by a kill is skipped (``cut`` is told); a line that is not a valid record
    is skipped and described in ``invalid``, or raises ``RecordSchemaError`` when ``strict``.
    A record of a newer schema always raises (``parse`` decides)."""
    if not path.exists():
        return
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield parse(line)
            except json.JSONDecodeError:
                if cut is not None:
                    cut()
            except (ValueError, TypeError, AttributeError) as exc:  # ValidationError included
                problem = f"{path.name} line {number}: not a valid record ({_first_error(exc)})"
                if strict:
                    raise RecordSchemaError(problem) from exc
                if invalid is not None:
                    invalid.append(problem)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"{where}: {err['msg']}" if where else err["msg"]
    return str(exc)
