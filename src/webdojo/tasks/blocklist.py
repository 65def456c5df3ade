"""Websites that keep blocking agents (captchas, "access denied", bot walls), kept out of
sampling for a while.

The file is a small JSON object keyed by site key (``webdojo.tasks.websites``)::

    {"allrecipes.com": {"until": "2026-05-01T12:00:00+00:00", "reason": "captcha", "count": 3}}

``count`` is how many times the website was reported; each report pushes ``until`` to at least
``now + duration``. An entry whose ``until`` has passed is ignored (and kept, so its count goes
on). The judges report blocking verdicts with ``block_website``; people use
``webdojo tasks block``. Writes are atomic (a temporary file renamed into place).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from webdojo.errors import BlocklistError, ConfigError
from webdojo.tasks.websites import registrable_domain

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str) -> timedelta:
    """``30m``, ``12h``, ``7d``, ``2w`` (also ``s``) as a timedelta."""
    match = _DURATION.match(text)
    if match is None:
        raise ConfigError(f"duration {text!r}: write a number and a unit s/m/h/d/w, e.g. 7d")
    return timedelta(seconds=float(match[1]) * _UNITS[match[2]])


@dataclass(frozen=True)
class BlockEntry:
    until: datetime
    reason: str
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"until": self.until.isoformat(), "reason": self.reason, "count": self.count}


def _now(now: datetime | None) -> datetime:
    return datetime.now(UTC) if now is None else now


def _entry(path: Path, site: str, raw: Any) -> BlockEntry:
    try:
        until = datetime.fromisoformat(raw["until"])
        if until.tzinfo is None:
            until = until.replace(tzinfo=UTC)  # naive times are read as UTC
        return BlockEntry(until, str(raw.get("reason", "")), int(raw.get("count", 1)))
    except (TypeError, KeyError, ValueError) as exc:
        raise BlocklistError(
            f"{path}: entry {site!r}: want {{until: ISO time, reason, count}} ({exc})"
        ) from exc


class Blocklist:
    def __init__(self, entries: dict[str, BlockEntry] | None = None) -> None:
        self.entries: dict[str, BlockEntry] = dict(entries or {})

    @classmethod
    def load(cls, path: Path) -> Blocklist:
        """The blocklist in ``path``; an empty one when the file does not exist."""
        path = Path(path)
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BlocklistError(f"{path}: not a readable JSON file ({exc})") from exc
        if not isinstance(data, dict):
            raise BlocklistError(f"{path}: want a JSON object keyed by website")
        return cls({site: _entry(path, site, raw) for site, raw in data.items()})

    def save(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        data = {site: e.to_json() for site, e in sorted(self.entries.items())}
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)

    def add(
        self, website: str, duration: timedelta, reason: str = "", now: datetime | None = None
    ) -> tuple[str, BlockEntry]:
        """Report ``website`` (a URL, host or site key) as blocking: (its site key, entry)."""
        site = registrable_domain(website)
        until = _now(now) + duration
        old = self.entries.get(site)
        if old is not None:
            until = max(until, old.until)
            reason = reason or old.reason
        entry = BlockEntry(until, reason, (old.count if old else 0) + 1)
        self.entries[site] = entry
        return site, entry

    def active(self, now: datetime | None = None) -> set[str]:
        """The site keys blocked at ``now``."""
        moment = _now(now)
        return {site for site, e in self.entries.items() if e.until > moment}


def block_website(
    path: Path, website: str, duration: timedelta, reason: str = "", now: datetime | None = None
) -> tuple[str, BlockEntry]:
    """Add a blocking report to the blocklist file ``path`` (created if missing). Reports from
    several processes at once are serialized with a lock file next to it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(path.name + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        blocklist = Blocklist.load(path)
        result = blocklist.add(website, duration, reason, now)
        blocklist.save(path)
    return result
