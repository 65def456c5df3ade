"""Model replies cached by content hash, in an append-only JSONL file.

A key is the SHA-256 of what decides the reply: the prompt version, the model and the input
(``content_key``). Each accepted reply is appended as one line and flushed at once, so a run
killed at any point keeps every reply it paid for and the next run asks only for the rest. A
kill can cut the last line short; such a line is skipped and counted (``unreadable``), and its
task is simply asked again. Sampling settings are not part of the key: change the prompt version
or the cache directory to force fresh replies.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import IO, Any

from webdojo.errors import ConfigError


def content_key(*parts: str) -> str:
    """A stable hash of ``parts`` (joined unambiguously)."""
    blob = json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    """``key -> value`` (any JSON value) backed by ``path``. Open with ``with ReplyCache(p)``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.unreadable = 0  # lines skipped on load (a line cut short by a kill)
        self._values: dict[str, Any] = {}
        self._handle: IO[str] | None = None
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        try:
            with self.path.open(encoding="utf-8") as handle:
                for line in handle:
                    self._read_line(line)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the reply cache {self.path}: {exc}") from exc

    def _read_line(self, line: str) -> None:
        if not line.strip():
            return
        try:
            entry = json.loads(line)
            self._values[entry["key"]] = entry["value"]
        except (ValueError, KeyError, TypeError):
            self.unreadable += 1

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: str) -> bool:
        return key in self._values

    def get(self, key: str) -> Any:
        return self._values.get(key)

    def put(self, key: str, value: Any, **about: Any) -> None:
        """Store ``value`` and append it to the file now (``about``: model, usage... for people
        reading the file; not read back)."""
        self._values[key] = value
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            cut_short = _ends_mid_line(self.path)
            self._handle = self.path.open("a", encoding="utf-8")
            if cut_short:
                self._handle.write("\n")  # end the line a kill cut short; it stays unreadable
        entry = {"key": key, "value": value, "at": round(time.time(), 3), **about}
        self._handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._handle.flush()  # in the kernel's hands: survives a kill of this process

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ReplyCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_mid_line(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) != b"\n"
