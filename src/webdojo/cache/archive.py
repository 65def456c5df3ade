"""An archive: one directory holding recorded traffic, its index and its rules.

    ARCHIVE/
      archive.json       format version, id, seed and clock for deterministic replay, origin
      traffic.warc.gz    every exchange as WARC request + response (or revisit) records
      index.sqlite       the index (rebuildable from the WARC: ``Archive.reindex``)
      rules.yaml         this archive's rules (learned ones, and any the user adds)
      last_replay.json   hit rates of the most recent replay (``webdojo cache stats``)

``ArchiveWriter`` creates one; ``Archive.open`` reads one. The WARC is the archive's truth:
the index only says where to look.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.index import Entry, Index, index_row
from webdojo.cache.rules import RuleSet, dump_rules, load_rules, rule_set
from webdojo.cache.warc_io import (
    ExchangeWriter,
    iter_exchanges,
    read_record,
    request_of,
    response_of,
)
from webdojo.errors import ArchiveError, ConfigError

ARCHIVE_FORMAT = 1
META, WARC, INDEX, RULES, LAST_REPLAY = (
    "archive.json",
    "traffic.warc.gz",
    "index.sqlite",
    "rules.yaml",
    "last_replay.json",
)
_BODY_CACHE = 256  # response bodies (and responses) kept in memory while replaying


@dataclass
class ArchiveMeta:
    id: str  # random; seeds deterministic replay
    created: float  # Unix seconds
    epoch_ms: int  # the clock pages see during replay: when recording started
    source: str  # what was recorded or imported, for people
    visits: int = 1
    exchanges: int = 0
    skipped: int = 0  # records an importer could not read
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"webdojo_archive": ARCHIVE_FORMAT, **self.__dict__}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)  # atomic: a reader sees the old file or the new one


class ArchiveWriter:
    """``with ArchiveWriter(path, source=...) as w: w.add(exchange)``. The directory must not
    hold an archive already (``overwrite=True`` replaces it)."""

    def __init__(self, path: Path, source: str, overwrite: bool = False) -> None:
        self.path = path
        if (path / META).exists() and not overwrite:
            raise ConfigError(f"{path} already holds an archive; pass overwrite to replace it")
        path.mkdir(parents=True, exist_ok=True)
        for name in (WARC, INDEX, LAST_REPLAY):
            (path / name).unlink(missing_ok=True)
        now = time.time()
        self.meta = ArchiveMeta(secrets.token_hex(8), now, int(now * 1000), source)
        self._stream: BinaryIO = open(path / WARC, "wb")  # noqa: SIM115 - closed in close()
        self._warc = ExchangeWriter(self._stream)
        self._rules = archive_rules(path)
        self._rows: list[tuple[object, ...]] = []  # index rows; bodies are in the WARC only
        self._started: list[float] = []
        self._visits = 0
        self._closed = False

    def add(self, exchange: Exchange) -> None:
        written = self._warc.add(exchange)
        self._rows.append(index_row(len(self._rows), exchange, written, self._rules))
        self._started.append(exchange.started)
        self._visits = max(self._visits, exchange.visit + 1)

    def close(self) -> ArchiveMeta:
        """Flush the WARC, build the index, write the metadata last (its presence marks a
        complete archive)."""
        if self._closed:
            return self.meta
        self._closed = True
        self._stream.close()
        with Index(self.path / INDEX) as index:
            index.insert(self._rows, self._rules)
        self.meta.exchanges = len(self._rows)
        self.meta.visits = max(self._visits, 1)
        first = min((t for t in self._started if t > 0), default=0.0)
        self.meta.epoch_ms = int(first * 1000) or self.meta.epoch_ms
        _write_json(self.path / META, self.meta.to_json())
        return self.meta

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Archive:
    """A readable archive: its index, its rules and the bodies in its WARC."""

    def __init__(self, path: Path, meta: ArchiveMeta, index: Index, rules: RuleSet) -> None:
        self.path = path
        self.meta = meta
        self.index = index
        self.rules = rules
        self._stream: BinaryIO = open(path / WARC, "rb")  # noqa: SIM115 - closed in close()
        self._bodies: OrderedDict[int, bytes] = OrderedDict()
        self._responses: OrderedDict[int, CapturedResponse] = OrderedDict()

    @classmethod
    def open(cls, path: Path, rule_files: tuple[Path, ...] = ()) -> Archive:
        """Open an archive, with extra user rule files on top of its own ``rules.yaml``; the
        index is rekeyed when the rules differ from the ones that built it."""
        meta = read_meta(path)
        if not (path / WARC).is_file():
            raise ArchiveError(f"{path}: {WARC} is missing", path=str(path))
        rules = archive_rules(path, rule_files)
        if not (path / INDEX).is_file():
            _rebuild_index(path, rules)
        index = Index(path / INDEX)
        index.rekey(rules)
        return cls(path, meta, index, rules)

    def request(self, entry: Entry) -> CapturedRequest:
        record, body = read_record(self._stream, entry.req_offset)
        return request_of(record, body)

    def response(self, entry: Entry) -> CapturedResponse:
        """The recorded response (kept: a replay serves the same few again and again)."""
        cached = self._responses.get(entry.resp_offset)
        if cached is not None:
            self._responses.move_to_end(entry.resp_offset)
            return cached
        record, _ = read_record(self._stream, entry.resp_offset)
        response = response_of(record, self._body(entry))
        self._responses[entry.resp_offset] = response
        if len(self._responses) > _BODY_CACHE:
            self._responses.popitem(last=False)
        return response

    def _body(self, entry: Entry) -> bytes:
        cached = self._bodies.get(entry.body_offset)
        if cached is not None:
            self._bodies.move_to_end(entry.body_offset)
            return cached
        _, body = read_record(self._stream, entry.body_offset)
        self._bodies[entry.body_offset] = body
        if len(self._bodies) > _BODY_CACHE:
            self._bodies.popitem(last=False)
        return body

    def save_rules(self, rules: RuleSet) -> None:
        """Keep the learned and user rules with the archive (the defaults are built in)."""
        dump_rules([r for r in rules.rules if r.source != "default"], self.path / RULES)

    def reindex(self) -> int:
        """Rebuild the index from the raw requests in the WARC."""
        self.index.close()
        count = _rebuild_index(self.path, self.rules)
        self.index = Index(self.path / INDEX)
        return count

    def close(self) -> None:
        self.index.close()
        self._stream.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def archive_rules(path: Path, rule_files: tuple[Path, ...] = ()) -> RuleSet:
    """The rules in force for the archive at ``path``: the defaults, the user's rule files,
    and the archive's own ``rules.yaml`` (its learned rules and any added by hand)."""
    own = path / RULES
    return rule_set(rule_files, load_rules(own) if own.exists() else ())


def read_meta(path: Path) -> ArchiveMeta:
    try:
        data = json.loads((path / META).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ArchiveError(f"{path} is not an archive (no {META})", path=str(path)) from exc
    except (OSError, ValueError) as exc:
        raise ArchiveError(f"{path / META}: unreadable: {exc}", path=str(path)) from exc
    version = data.pop("webdojo_archive", None) if isinstance(data, dict) else None
    if version != ARCHIVE_FORMAT:
        raise ArchiveError(
            f"{path}: archive format {version!r}; this webdojo reads format {ARCHIVE_FORMAT}",
            path=str(path),
            format=version,
        )
    try:
        return ArchiveMeta(**data)
    except TypeError as exc:
        raise ArchiveError(f"{path / META}: unexpected fields: {exc}", path=str(path)) from exc


def _rebuild_index(path: Path, rules: RuleSet) -> int:
    tmp = path / (INDEX + ".tmp")
    tmp.unlink(missing_ok=True)
    with open(path / WARC, "rb") as stream, Index(tmp) as index:
        count = index.add(iter_exchanges(stream), rules)
    os.replace(tmp, path / INDEX)
    return count


def write_last_replay(path: Path, stats: dict[str, Any]) -> None:
    _write_json(path / LAST_REPLAY, stats)


def read_last_replay(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((path / LAST_REPLAY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
