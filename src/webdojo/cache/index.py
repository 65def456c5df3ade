"""The SQLite index of an archive: every recorded request, keyed at every matching level.

One row per exchange, with its endpoint, its normalized fields (unmasked, so the level-1 and
level-2 keys can be recomputed when rules change without reading the WARC again) and where
its records lie in the WARC. ``rules_id`` in the meta table says which rules built the keys.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webdojo.cache.exchange import Exchange, header
from webdojo.cache.normalize import (
    Endpoint,
    Field,
    NormalRequest,
    exact_key,
    normalize,
    signature,
)
from webdojo.cache.rules import RuleSet
from webdojo.cache.warc_io import Written

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY, visit INTEGER, seq INTEGER, started REAL,
    method TEXT, host TEXT, path TEXT, url TEXT, fields TEXT,
    l0 TEXT, l1 TEXT, l2 TEXT,
    status INTEGER, mime TEXT, size INTEGER, digest TEXT,
    req_offset INTEGER, resp_offset INTEGER, body_offset INTEGER
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS by_l0 ON entries (l0, visit, seq);
CREATE INDEX IF NOT EXISTS by_l1 ON entries (l1, visit, seq);
CREATE INDEX IF NOT EXISTS by_l2 ON entries (l2, visit, seq);
CREATE INDEX IF NOT EXISTS by_endpoint ON entries (method, host, path, visit, seq);
"""
_COLUMNS = (
    "id, visit, seq, started, method, host, path, url, fields, status, mime, size, digest, "
    "req_offset, resp_offset, body_offset"
)


@dataclass(frozen=True)
class Entry:
    """One indexed exchange, without its bodies."""

    id: int
    visit: int
    seq: int
    started: float
    endpoint: Endpoint
    url: str
    fields: tuple[Field, ...]
    status: int
    mime: str
    size: int
    digest: str
    req_offset: int
    resp_offset: int
    body_offset: int

    def normal(self) -> NormalRequest:
        """The recorded request as the normalizer saw it (from the index, not the WARC)."""
        return NormalRequest(self.endpoint, urlsplit(self.url).scheme, self.fields)


def rules_id(rules: RuleSet) -> str:
    text = json.dumps(sorted(r.model_dump_json() for r in rules.rules))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class Index:
    """Open with ``Index(path)``; ``close()`` or use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- building -----------------------------------------------------------------------

    def add(self, rows: Iterable[tuple[Exchange, Written]], rules: RuleSet) -> int:
        """Index exchanges (ids follow on from the rows already there)."""
        start = self.count()
        return self.insert(
            (index_row(start + i, ex, w, rules) for i, (ex, w) in enumerate(rows)), rules
        )

    def insert(self, rows: Iterable[tuple[object, ...]], rules: RuleSet) -> int:
        """Insert rows made by ``index_row`` with these rules."""
        before = self.count()
        with self._db:
            self._db.executemany(f"INSERT INTO entries ({_COLUMNS}, l0, l1, l2) VALUES "
                                 f"({', '.join('?' * 19)})", rows)  # fmt: skip
            self._db.executescript(_INDEXES)
            self._set_meta("rules_id", rules_id(rules))
        return self.count() - before

    def rekey(self, rules: RuleSet) -> bool:
        """Recompute the level-1 and level-2 keys for other rules; False if already current."""
        if self.meta("rules_id") == rules_id(rules):
            return False
        rows = self._db.execute("SELECT id, method, host, path, fields FROM entries").fetchall()
        updates = []
        for rid, method, host, path, fields in rows:
            endpoint = Endpoint(method, host, path)
            parsed = _fields(fields)
            updates.append((*_masked_keys(endpoint, parsed, rules), rid))
        with self._db:
            self._db.executemany("UPDATE entries SET l1 = ?, l2 = ? WHERE id = ?", updates)
            self._set_meta("rules_id", rules_id(rules))
        return True

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # --- lookups ------------------------------------------------------------------------

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM entries").fetchone()[0])

    def by_key(self, level: int, key: str) -> list[Entry]:
        column = ("l0", "l1", "l2")[level]
        sql = f"SELECT {_COLUMNS} FROM entries WHERE {column} = ? ORDER BY visit, seq"
        return [_entry(r) for r in self._db.execute(sql, (key,))]

    def by_endpoint(self, endpoint: Endpoint, limit: int) -> list[Entry]:
        sql = (f"SELECT {_COLUMNS} FROM entries WHERE method = ? AND host = ? AND path = ? "
               "ORDER BY visit, seq LIMIT ?")  # fmt: skip
        rows = self._db.execute(sql, (endpoint.method, endpoint.host, endpoint.path, limit))
        return [_entry(r) for r in rows]

    def near(self, endpoint: Endpoint, limit: int) -> list[Entry]:
        """Same host and method, any path: where to look when even the path is unknown."""
        sql = (f"SELECT {_COLUMNS} FROM entries WHERE method = ? AND host = ? "
               "ORDER BY visit, seq LIMIT ?")  # fmt: skip
        return [_entry(r) for r in self._db.execute(sql, (endpoint.method, endpoint.host, limit))]

    def entry(self, entry_id: int) -> Entry:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM entries WHERE id = ?", (entry_id,))
        return _entry(row.fetchone())

    def entries(self) -> Iterator[Entry]:
        for row in self._db.execute(f"SELECT {_COLUMNS} FROM entries ORDER BY id"):
            yield _entry(row)

    def hosts(self) -> list[tuple[str, int, int]]:
        """(host, entries, body bytes) for every host, most entries first."""
        sql = "SELECT host, count(*), sum(size) FROM entries GROUP BY host ORDER BY 2 DESC, 1"
        return [(h, int(n), int(b or 0)) for h, n, b in self._db.execute(sql)]


def _masked_keys(endpoint: Endpoint, fields: tuple[Field, ...], rules: RuleSet) -> tuple[str, str]:
    return (
        signature(endpoint, rules.mask(endpoint, fields, 1)),
        signature(endpoint, rules.mask(endpoint, fields, 2)),
    )


def index_row(rid: int, ex: Exchange, w: Written, rules: RuleSet) -> tuple[object, ...]:
    """The index row of one exchange: computed as it is recorded, so bodies need not wait."""
    normal = normalize(ex.request)
    e = normal.endpoint
    fields = json.dumps([[f.where, f.name, f.value] for f in normal.fields])
    mime = (header(ex.response.headers, "content-type") or "").split(";")[0].strip().lower()
    size = len(ex.response.body)
    return (
        rid, ex.visit, ex.seq, ex.started, e.method, e.host, e.path, ex.request.url, fields,
        ex.response.status, mime, size, w.body_digest, w.request_offset, w.response_offset,
        w.body_offset, exact_key(ex.request), *_masked_keys(e, normal.fields, rules),
    )  # fmt: skip


def _fields(text: str) -> tuple[Field, ...]:
    return tuple(Field(w, n, v) for w, n, v in json.loads(text))


def _entry(row: tuple[Any, ...]) -> Entry:
    (rid, visit, seq, started, method, host, path, url, fields, status, mime, size, dig,
     req_offset, resp_offset, body_offset) = row  # fmt: skip
    return Entry(
        int(rid), int(visit), int(seq), float(started), Endpoint(str(method), str(host), str(path)),
        str(url), _fields(str(fields)), int(status), str(mime), int(size), str(dig),
        int(req_offset), int(resp_offset), int(body_offset),
    )  # fmt: skip
