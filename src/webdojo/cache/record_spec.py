"""The session option that records a run's traffic, apart from the recorder itself: the
browser and rollout layers name it in their options without importing WARC and SQLite code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecordSpec:
    """Record every session of a run into one archive: a session option (``SessionOptions.
    record``), for recording with a policy over a task file. The sessions of a process share
    one writer (``recording_sink``); the archive is complete after ``finish_recording``."""

    path: str  # the archive directory
    hosts: tuple[str, ...] | None = None  # the hosts that may be contacted; None = any
