"""The trajectory store: one directory per run, append-only, resumable.

Layout (``FORMAT_VERSION`` 2)::

    DIR/config.json        how the run was started (written once; checked on resume)
    DIR/steps.jsonl        one ``StepRecord`` per line, appended as the step happens
    DIR/episodes.jsonl     one ``EpisodeRecord`` per finished attempt
    DIR/screenshots/ab/abcdef...e.jpg   content-addressed (sha256 of the bytes)
    DIR/observations/ab/abcdef...e.json the rest of each observation, content-addressed too

Nothing acknowledged is ever rewritten: a step line is flushed before ``append_step``
returns, an episode line (and every step line before it) is synced to disk before
``append_episode`` returns. A process killed mid-write leaves at worst a torn last line, which
readers skip and a resume cuts off (it was never acknowledged), so the files hold whole lines
only. Resuming appends to the same files: episodes already finished are skipped, and faulted
ones are run again (they were never scored). Whole files (``config.json``, screenshots,
observations) are written to a temporary name and renamed into place. ``webdojo.store.run_reader`` reads it
back (the latest record per episode key); the record models are in ``webdojo.store.records``,
and ``webdojo.store.run_config`` reads ``config.json`` back as a typed ``RunConfigRecord``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import IO

from webdojo.errors import ConfigError
from webdojo.observation import Observation
from webdojo.store.records import EpisodeRecord, StepRecord, to_line
from webdojo.store.run_config import CONFIG, RunConfigRecord, read_config

FORMAT_VERSION = 2  # of the directory layout; each record line has its own schema_version
STEPS = "steps.jsonl"
EPISODES = "episodes.jsonl"
SCREENSHOTS = "screenshots"
OBSERVATIONS = "observations"  # content-addressed observation JSON (schema v3 steps)


class RunStore:
    """Writes one run directory. Not thread-safe; one event loop writes it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / SCREENSHOTS).mkdir(exist_ok=True)
        self._steps = open_for_append(self.root / STEPS)
        self._episodes = open_for_append(self.root / EPISODES)

    # --- config -------------------------------------------------------------------------

    def write_config(self, config: RunConfigRecord) -> None:
        """Record the run's config; on resume, refuse a config that changes what is measured."""
        path = self.root / CONFIG
        if path.exists():
            problems: list[str] = []
            old = read_config(self.root, problems)
            if old is None:
                raise ConfigError(f"{self.root}: {'; '.join(problems)}; use another --out")
            measured = ("tasks", "policy", "seed")
            changed = [k for k in measured if getattr(old, k) != getattr(config, k)]
            if changed:
                raise ConfigError(
                    f"{self.root} holds a run with a different {', '.join(changed)}; "
                    "use another --out or the same settings"
                )
            return
        data = {"format_version": FORMAT_VERSION, **config.as_written()}
        write_atomic(path, json.dumps(data, indent=2, sort_keys=True))

    # --- records ------------------------------------------------------------------------

    def add_screenshot(self, data: bytes, ext: str) -> str:
        """Store an image once; returns its path relative to the run directory."""
        return self._add_blob(SCREENSHOTS, data, ext)

    def add_observation(self, observation: Observation) -> str:
        """Store what the policy saw besides the screenshot (tabs, accessibility tree, elements,
        last error) once; returns its path. Capture timings are left out: they differ on every
        capture and would defeat the deduplication of unchanged pages."""
        data = observation.model_dump_json(exclude={"screenshot", "timings_ms"})
        return self._add_blob(OBSERVATIONS, data.encode("utf-8"), "json")

    def _add_blob(self, folder: str, data: bytes, ext: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        rel = f"{folder}/{digest[:2]}/{digest}.{ext}"
        path = self.root / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Not synced: blobs are written on the rollout's event loop at every step, where
            # two syncs a step would stall every session (7 ms a file on a busy 2-core disk).
            write_atomic(path, data, sync=False)
        return rel

    def append_step(self, record: StepRecord) -> None:
        self._append(self._steps, record, durable=False)

    def append_episode(self, record: EpisodeRecord) -> None:
        # Steps are flushed but only synced here: an episode line implies its steps are on disk.
        os.fsync(self._steps.fileno())
        self._append(self._episodes, record, durable=True)

    def _append(self, handle: IO[str], record: StepRecord | EpisodeRecord, durable: bool) -> None:
        handle.write(to_line(record) + "\n")
        handle.flush()
        if durable:
            os.fsync(handle.fileno())

    def close(self) -> None:
        for handle in (self._steps, self._episodes):
            if not handle.closed:
                handle.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_for_append(path: Path) -> IO[str]:
    """Open a JSONL file for appending, first cutting off a line left torn by a kill (the
    write that was cut short never returned, so nothing acknowledged is lost)."""
    if path.exists() and path.stat().st_size:
        _cut_torn_tail(path)
    return open(path, "a", encoding="utf-8")


def _cut_torn_tail(path: Path, chunk: int = 1 << 16) -> None:
    """Truncate ``path`` just after its last newline (to empty when it has none)."""
    with open(path, "r+b") as handle:
        end = handle.seek(0, os.SEEK_END)
        pos = end
        while pos > 0:
            start = max(0, pos - chunk)
            handle.seek(start)
            block = handle.read(pos - start)
            newline = block.rfind(b"\n")
            if newline != -1:
                keep = start + newline + 1
                break
            pos = start
        else:
            keep = 0
        if keep != end:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())


def write_atomic(path: Path, data: str | bytes, *, sync: bool = True) -> None:
    """Write a whole file so that a reader, or a killed process, sees the old contents or the
    new ones: the bytes go to ``NAME.tmp``, the rename replaces ``path`` (``str`` is written as
    UTF-8). ``sync``: the bytes and then the directory are synced too, so the file survives a
    power loss (about 1-8 ms a file)."""
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(tmp, "wb") as handle:
        handle.write(data)
        if sync:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    if sync:
        _sync_dir(path.parent)


def _sync_dir(folder: Path) -> None:
    """Sync a directory's entries (a rename into it); a no-op where directories cannot be
    opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
