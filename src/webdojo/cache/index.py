"""The SQLite index of an archive: every recorded request, keyed at every matching level.

One row per exchange, with its endpoint, its normalized fields (unmasked, so the keys can be
recomputed when rules change without reading the WARC again), which of them level 2 masks,
and where its records lie in the WARC. The ``endpoints`` table holds each endpoint's essential
parameters (``webdojo.cache.essential``), from which every row's ``l3`` key is made.
``rules_id`` in the meta table says which rules built the keys; ``schema`` which layout the
file has (an older file gains the missing columns on open, and its next ``rekey`` fills them).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webdojo.cache.essential import Name, essential_names, l3_key
from webdojo.cache.exchange import Exchange, header
from webdojo.cache.normalize import (
    Endpoint,
    Field,
    NormalRequest,
    exact_key,
    normalize,
    signature,
)
from webdojo.cache.rules import MASK, RuleSet
from webdojo.cache.warc_io import Written

SCHEMA = "2"  # 2: the masked, l3 and l2_first columns, the endpoints table
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY, visit INTEGER, seq INTEGER, started REAL,
    method TEXT, host TEXT, path TEXT, url TEXT, fields TEXT,
    l0 TEXT, l1 TEXT, l2 TEXT,
    status INTEGER, mime TEXT, size INTEGER, digest TEXT,
    req_offset INTEGER, resp_offset INTEGER, body_offset INTEGER,
    masked TEXT, l3 TEXT, l2_first INTEGER
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS endpoints (
    method TEXT, host TEXT, path TEXT, essential TEXT, PRIMARY KEY (method, host, path)
);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS by_l0 ON entries (l0, visit, seq);
CREATE INDEX IF NOT EXISTS by_l1 ON entries (l1, visit, seq);
CREATE INDEX IF NOT EXISTS by_l2 ON entries (l2, visit, seq);
CREATE INDEX IF NOT EXISTS by_l3 ON entries (l3, visit, seq) WHERE l2_first = 1;
CREATE INDEX IF NOT EXISTS by_endpoint ON entries (method, host, path, visit, seq);
CREATE INDEX IF NOT EXISTS by_host ON entries (method, host, visit, seq);
"""
Plain = tuple[str, str, str]  # a field as (where, name, value): quicker to score than a Field
_ROW = (
    "id, visit, seq, started, method, host, path, url, fields, status, mime, size, digest, "
    "req_offset, resp_offset, body_offset"
)
_COLUMNS = f"{_ROW}, masked"  # what an Entry is read from
_BY_ENDPOINT = (
    f"SELECT {_COLUMNS} FROM entries WHERE method = ? AND host = ? AND path = ? "
    "ORDER BY visit, seq LIMIT ?"
)
_BY_HOST = (
    f"SELECT {_COLUMNS} FROM entries WHERE method = ? AND host = ? ORDER BY visit, seq LIMIT ?"
)
_INSERT = f"INSERT INTO entries ({_ROW}, l0, l1, l2, masked) VALUES ({', '.join('?' * 20)})"
# Only the first recorded row of each l2 key is an L3 candidate (l2_first): its copies would
# score the same, and a key shared by thousands of identical rows must not cost thousands.
_VARIANTS = (
    f"SELECT {_COLUMNS} FROM entries WHERE l3 = ? AND l2_first = 1 ORDER BY visit, seq LIMIT ?"
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
    masked: tuple[int, ...] = ()  # positions in fields of those the level-2 rules mask

    def normal(self) -> NormalRequest:
        """The recorded request as the normalizer saw it (from the index, not the WARC)."""
        return NormalRequest(self.endpoint, urlsplit(self.url).scheme, self.fields)

    def at_level2(self) -> tuple[Field, ...]:
        """The fields as level 2 sees them, masked by the rules the index was keyed with."""
        return _at_level2(self.fields, self.masked)


def rules_id(rules: RuleSet) -> str:
    text = json.dumps(sorted(r.model_dump_json() for r in rules.rules))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class Index:
    """Open with ``Index(path)``; ``close()`` or use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self._upgrade()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _upgrade(self) -> None:
        """Give a file an older webdojo wrote the columns this one keys; they stay empty until
        the next ``rekey``, which forgetting ``rules_id`` makes sure of (``Archive.open``)."""
        if self.meta("schema") == SCHEMA:
            return
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")  # another process may be opening it too
            if self.meta("schema") == SCHEMA:
                return
            have = {row[1] for row in self._db.execute("PRAGMA table_info(entries)")}
            for column, kind in (("masked", "TEXT"), ("l3", "TEXT"), ("l2_first", "INTEGER")):
                if column not in have:
                    self._db.execute(f"ALTER TABLE entries ADD COLUMN {column} {kind}")
            self._db.execute("DELETE FROM meta WHERE key = 'rules_id'")
            self._set_meta("schema", SCHEMA)
        if self.count():  # an empty file gets them after its bulk insert: quicker
            self._db.executescript(_INDEXES)

    # --- building -----------------------------------------------------------------------

    def add(self, rows: Iterable[tuple[Exchange, Written]], rules: RuleSet) -> int:
        """Index exchanges (ids follow on from the rows already there)."""
        start = self.count()
        return self.insert(
            (index_row(start + i, ex, w, rules) for i, (ex, w) in enumerate(rows)), rules
        )

    def insert(self, rows: Iterable[tuple[object, ...]], rules: RuleSet) -> int:
        """Insert rows made by ``index_row`` with these rules, then key level 3 (it needs all
        of an endpoint's rows)."""
        before = self.count()
        with self._db:
            self._db.executemany(_INSERT, rows)
            self._key_level3()
            self._db.executescript(_INDEXES)
            self._set_meta("rules_id", rules_id(rules))
        return self.count() - before

    def rekey(self, rules: RuleSet) -> bool:
        """Recompute the keys for other rules; False if already current."""
        if self.meta("rules_id") == rules_id(rules):
            return False
        rows = self._db.execute("SELECT id, method, host, path, fields FROM entries").fetchall()
        updates = []
        for rid, method, host, path, fields in rows:
            endpoint = Endpoint(method, host, path)
            parsed = _fields(fields)
            updates.append((*_masked_keys(endpoint, parsed, rules), rid))
        with self._db:
            self._db.executemany(
                "UPDATE entries SET l1 = ?, l2 = ?, masked = ? WHERE id = ?", updates
            )
            self._key_level3()
            self._set_meta("rules_id", rules_id(rules))
        return True

    def _key_level3(self) -> None:
        """Every endpoint's essential parameters; every row's l3 key made from them, and
        whether it is the first recorded of its l2 key."""
        rows = self._db.execute(
            "SELECT id, method, host, path, fields, masked, l2 FROM entries "
            "ORDER BY method, host, path, visit, seq, id"
        )
        essentials, keys = [], []
        for (method, host, path), group in groupby(rows, key=lambda r: (r[1], r[2], r[3])):
            endpoint = Endpoint(method, host, path)
            members = [
                (rid, _at_level2(_fields(f), _positions(m)), l2) for rid, _, _, _, f, m, l2 in group
            ]
            essential = essential_names(fields for _, fields, _ in members)
            essentials.append((method, host, path, json.dumps(sorted(essential))))
            seen: set[str] = set()
            for rid, fields, l2 in members:
                keys.append((l3_key(endpoint, fields, essential), l2 not in seen, rid))
                seen.add(l2)
        self._db.execute("DELETE FROM endpoints")
        self._db.executemany("INSERT INTO endpoints VALUES (?, ?, ?, ?)", essentials)
        self._db.executemany("UPDATE entries SET l3 = ?, l2_first = ? WHERE id = ?", keys)

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

    def essential(self, endpoint: Endpoint) -> frozenset[Name] | None:
        """The endpoint's essential parameter names; None when it was never recorded."""
        sql = "SELECT essential FROM endpoints WHERE method = ? AND host = ? AND path = ?"
        row = self._db.execute(sql, (endpoint.method, endpoint.host, endpoint.path)).fetchone()
        return frozenset((w, n) for w, n in json.loads(row[0])) if row else None

    def l3_variants(self, key: str, limit: int) -> list[Entry]:
        """The first recorded request of each distinct l2 key among those with this l3 key,
        the first ``limit`` in recorded order."""
        return [_entry(r) for r in self._db.execute(_VARIANTS, (key, limit))]

    def nearest(
        self,
        endpoint: Endpoint,
        score: Callable[[list[Plain]], float],
        limit: int,
        n: int,
        recorded: bool = True,
    ) -> list[tuple[float, Entry]]:
        """The ``n`` best by ``score`` (of their level-2 fields), best first, of the first
        ``limit`` recorded requests of the endpoint, else (or when it is known not to be
        ``recorded``) of its host. Scoring reads the rows as they are: only the ``n`` chosen
        become Entries (a miss must stay cheap)."""
        m, h, p = endpoint.method, endpoint.host, endpoint.path
        rows = self._db.execute(_BY_ENDPOINT, (m, h, p, limit)).fetchall() if recorded else []
        rows = rows or self._db.execute(_BY_HOST, (m, h, limit)).fetchall()
        scored = [(score(_plain_level2(r[8], r[16])), r) for r in rows]
        scored.sort(key=lambda t: (-t[0], t[1][0]))
        return [(s, _entry(r)) for s, r in scored[:n]]

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


def _masked_keys(
    endpoint: Endpoint, fields: tuple[Field, ...], rules: RuleSet
) -> tuple[str, str, str]:
    """The level-1 and level-2 keys, and which fields level 2 masks (so that scoring a
    recorded request at level 3 need not apply the rules again)."""
    level2 = rules.mask(endpoint, fields, 2)
    masked = [i for i, (f, m) in enumerate(zip(fields, level2, strict=True)) if f != m]
    return (
        signature(endpoint, rules.mask(endpoint, fields, 1)),
        signature(endpoint, level2),
        ",".join(map(str, masked)),  # "0,3": cheaper to read back than JSON
    )


def index_row(rid: int, ex: Exchange, w: Written, rules: RuleSet) -> tuple[object, ...]:
    """The index row of one exchange: computed as it is recorded, so bodies need not wait."""
    normal = normalize(ex.request)
    e = normal.endpoint
    fields = json.dumps([[f.where, f.name, f.value] for f in normal.fields])
    mime = (header(ex.response.headers, "content-type") or "").split(";")[0].strip().lower()
    size = len(ex.response.body)
    return (
        rid,
        ex.visit,
        ex.seq,
        ex.started,
        e.method,
        e.host,
        e.path,
        ex.request.url,
        fields,
        ex.response.status,
        mime,
        size,
        w.body_digest,
        w.request_offset,
        w.response_offset,
        w.body_offset,
        exact_key(ex.request),
        *_masked_keys(e, normal.fields, rules),
    )


def _fields(text: str) -> tuple[Field, ...]:
    return tuple(Field(w, n, v) for w, n, v in json.loads(text))


def _positions(text: str | None) -> tuple[int, ...]:
    return tuple(map(int, text.split(","))) if text else ()  # NULL: an old file not rekeyed


def _plain_level2(fields: str, masked: str | None) -> list[Plain]:
    positions = _positions(masked)
    return [(w, n, MASK if i in positions else v) for i, (w, n, v) in enumerate(json.loads(fields))]


def _at_level2(fields: tuple[Field, ...], masked: tuple[int, ...]) -> tuple[Field, ...]:
    if not masked:
        return fields
    return tuple(Field(f.where, f.name, MASK) if i in masked else f for i, f in enumerate(fields))


def _entry(row: tuple[Any, ...]) -> Entry:
    rid, visit, seq, started, method, host, path, url, fields = row[:9]
    status, mime, size, digest, req_offset, resp_offset, body_offset, masked = row[9:]
    return Entry(
        id=int(rid),
        visit=int(visit),
        seq=int(seq),
        started=float(started),
        endpoint=Endpoint(str(method), str(host), str(path)),
        url=str(url),
        fields=_fields(str(fields)),
        status=int(status),
        mime=str(mime),
        size=int(size),
        digest=str(digest),
        req_offset=int(req_offset),
        resp_offset=int(resp_offset),
        body_offset=int(body_offset),
        masked=_positions(masked),
    )
