"""What every task-set format shares: a raw record and where it came from, the error a bad
record raises, field accessors that name the field, and the ``Format`` a module describes.

A format module reads a file into ``RawRecord``s (``readers.py`` has one reader per file kind)
and converts each raw dict into the fields of a ``Task``. It never builds the ``Task`` itself:
``importer.py`` adds the id prefix, sanitizes the id, validates, and counts problems, so every
format reports bad input the same way.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

# why a record was skipped; the importer counts skips per reason
INVALID_JSON = "invalid JSON"
TRUNCATED_JSON = "truncated JSON"
NOT_AN_OBJECT = "not an object"
MISSING_FIELD = "missing field"
WRONG_TYPE = "wrong type"
INVALID_VALUE = "invalid value"
DUPLICATE_ID = "duplicate id"
BAD_ROW = "bad row"


class Where(NamedTuple):
    """A record's place: its file and the line it starts on (JSON, JSONL, CSV) or its row
    (parquet, where lines mean nothing). Tuples, not dataclasses: 300k of them are built."""

    path: str
    line: int | None = None
    row: int | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}"
        return f"{self.path}: row {self.row}"


class RawRecord(NamedTuple):
    """One record as read: ``data`` (a dict), or ``error`` when it could not be read at all.
    ``position`` counts records from 0 in file order (a fallback id for formats without one)."""

    where: Where
    position: int
    data: dict[str, Any] | None = None
    error: RecordError | None = None


class RecordError(Exception):
    """A bad record: ``kind`` is one of the reasons above, ``field`` the source's field name."""

    def __init__(self, kind: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.field = field
        self.message = message

    def describe(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


@dataclass(frozen=True)
class Converted:
    """A record as Task fields, plus the source's own id (prefixed and sanitized later)."""

    source_id: str
    fields: dict[str, Any]


# A converter turns one raw record's dict into Task fields.
Converter = Callable[[RawRecord], Converted]


def _no_notes() -> list[str]:
    return []


@dataclass(frozen=True)
class Opened:
    """A format opened on one file: its converter, and what to tell the user about the file
    once it is read (the WebVoyager converter reads the reference answers next to the data
    file, and notes tasks that have none)."""

    convert: Converter
    notes: Callable[[], list[str]] = _no_notes


@dataclass(frozen=True)
class Format:
    """One task-set format. ``keys`` are the fields whose presence in a file's first record
    identifies it (``excludes`` those whose presence rules it out); ``kinds`` the file kinds
    (extensions) it ships in; ``field_names`` maps Task fields back to the source's names for
    error messages; ``prefix_ids`` is False only for webdojo's own built-in tasks."""

    name: str
    description: str
    keys: frozenset[str]
    kinds: tuple[str, ...]
    open: Callable[[Path], Opened]
    excludes: frozenset[str] = frozenset()
    field_names: dict[str, str] = field(default_factory=dict)
    prefix_ids: bool = True

    def matches(self, keys: set[str]) -> bool:
        return self.keys <= keys and not (self.excludes & keys)


# --- field accessors: every message names the source's field -------------------------------

T = TypeVar("T")
_TYPE_NAMES = {str: "a string", int: "an integer", list: "a list", dict: "an object"}


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)


def _json_type(value: Any) -> str:
    names = {
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def require(data: dict[str, Any], name: str, kind: type[T]) -> T:
    """``data[name]``, which must be present and of ``kind`` (a non-blank string for str)."""
    if name not in data or data[name] is None:
        raise RecordError(MISSING_FIELD, "required field is missing", name)
    return check_type(data[name], name, kind)


def optional(data: dict[str, Any], name: str, kind: type[T]) -> T | None:
    """``data[name]`` if present and not null (then it must be of ``kind``), else None."""
    value = data.get(name)
    if value is None or (kind is str and value == ""):
        return None
    return check_type(value, name, kind)


def check_type(value: Any, name: str, kind: type[T]) -> T:
    # bool is an int in Python, never in a task file
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(WRONG_TYPE, f"expected {_type_name(kind)}, got {_json_type(value)}", name)
    if kind is str and not value.strip():  # type: ignore[attr-defined]
        raise RecordError(MISSING_FIELD, "is blank", name)
    return value


def scalar_text(value: Any, name: str) -> str:
    """An answer-like scalar (string or number) as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RecordError(WRONG_TYPE, f"expected a string or number, got {_json_type(value)}", name)


def rest(data: dict[str, Any], used: set[str] | frozenset[str]) -> dict[str, Any]:
    """The source's other fields, verbatim (they go into ``Task.meta``)."""
    return {k: v for k, v in data.items() if k not in used}


# --- ids ------------------------------------------------------------------------------------

_ID_BAD = re.compile(r"[^A-Za-z0-9_.:@/+-]")
MAX_ID = 200


def sanitize_id(text: str) -> str:
    """``text`` with every character that a Task id may not hold replaced by ``_``; an id too
    long is cut and given a hash of the whole, so two long ids stay apart."""
    clean = _ID_BAD.sub("_", text)
    if len(clean) > MAX_ID:
        digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
        clean = f"{clean[: MAX_ID - 13]}-{digest}"
    return clean


def website_start(website: str) -> str:
    """A start URL for a website given as a URL or a bare host."""
    return website if website.startswith(("http://", "https://")) else f"https://{website}"
