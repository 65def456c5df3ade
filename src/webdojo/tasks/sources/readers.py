"""Read a task-set file, record by record, whatever its kind: JSONL, a JSON list, CSV, parquet.

Each reader yields ``RawRecord``s in file order and never stops at a bad record: a record that
cannot be read becomes a ``RawRecord`` with an ``error`` (truncated JSON, a CSV row with the
wrong number of fields), so the importer can fail on it or skip it and say so. Problems with
the file as a whole (missing, unreadable, empty, no header) raise ``TaskFileError``.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from webdojo.errors import TaskFileError
from webdojo.tasks.sources.base import (
    BAD_ROW,
    INVALID_JSON,
    NOT_AN_OBJECT,
    TRUNCATED_JSON,
    RawRecord,
    RecordError,
    Where,
)
from webdojo.tasks.task_file import iter_lines

KINDS = ("jsonl", "json", "csv", "parquet")
PARQUET_BATCH = 4096


def kind_of(path: Path) -> str | None:
    """The file kind by extension (``.jsonl``, ``.json``, ``.csv``, ``.parquet``), else None."""
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in KINDS else None


def read_records(path: Path, kind: str) -> Iterator[RawRecord]:
    readers = {"jsonl": read_jsonl, "json": read_json, "csv": read_csv, "parquet": read_parquet}
    return readers[kind](path)


def _record(where: Where, index: int, value: Any) -> RawRecord:
    if isinstance(value, dict):
        return RawRecord(where, index, data=value)
    error = RecordError(NOT_AN_OBJECT, f"expected a JSON object, got {type(value).__name__}")
    return RawRecord(where, index, error=error)


def read_jsonl(path: Path) -> Iterator[RawRecord]:
    """One JSON object per line; blank lines are ignored."""
    for index, (number, line) in enumerate(iter_lines(path)):
        where = Where(str(path), line=number)
        text = line.rstrip("\r\n")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            yield RawRecord(where, index, error=_json_error(exc, text))
            continue
        yield _record(where, index, value)


def _json_error(exc: json.JSONDecodeError, text: str) -> RecordError:
    kind = TRUNCATED_JSON if _truncated(exc, text) else INVALID_JSON
    return RecordError(kind, f"{kind} ({exc.msg} at column {exc.colno})")


def _truncated(exc: json.JSONDecodeError, text: str) -> bool:
    """Whether the JSON text just stops: the parser ran off its end, or a string that opens
    never closes."""
    if _skip_space(text, exc.pos) >= len(text):
        return True
    return exc.msg.startswith("Unterminated string") and text.find('"', exc.pos + 1) < 0


def read_json(path: Path) -> Iterator[RawRecord]:
    """A JSON list of objects (``[{...}, {...}]``), read element by element so that a broken
    element is reported at its line and the elements before it still count. A ``.json`` file
    that holds one object per line is read as JSONL."""
    text = _read_text(path)
    start = len(text) - len(text.lstrip())
    if start == len(text):
        return  # an empty file: no records
    if text[start] == "{":
        try:  # one object (a file of JSON, not a task list): one record
            value = json.loads(text)
        except json.JSONDecodeError:
            yield from read_jsonl(path)
            return
        yield _record(Where(str(path), line=text.count("\n", 0, start) + 1), 0, value)
        return
    if text[start] != "[":
        where = Where(str(path), line=text.count("\n", 0, start) + 1)
        yield RawRecord(where, 0, error=RecordError(INVALID_JSON, "expected a JSON list"))
        return
    yield from _array_elements(path, text, start + 1)


def _array_elements(path: Path, text: str, pos: int) -> Iterator[RawRecord]:
    decoder = json.JSONDecoder()
    line, counted = 1, 0
    index = 0
    while True:
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == "]":
            return
        line += text.count("\n", counted, pos)
        counted = pos
        where = Where(str(path), line=line)
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            kind = TRUNCATED_JSON if _truncated(exc, text) else INVALID_JSON
            message = f"{kind} ({exc.msg} at line {exc.lineno}); the rest of the file is unreadable"
            yield RawRecord(where, index, error=RecordError(kind, message))
            return
        yield _record(where, index, value)
        index += 1
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos >= len(text) or text[pos] != "]":
            line += text.count("\n", counted, pos)
            where = Where(str(path), line=line)
            message = (
                "truncated JSON (the list is not closed)"
                if pos >= len(text)
                else ("invalid JSON (expected ',' or ']' between list elements)")
            )
            yield RawRecord(where, index, error=RecordError(INVALID_JSON, message))
            return


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc


def read_csv(path: Path) -> Iterator[RawRecord]:
    """A CSV file with a header row; a quoted field may span lines, so each record is placed
    at the line it starts on."""
    csv.field_size_limit(sys.maxsize)  # task criteria can be long; the default is 128 KiB
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror}") from exc
    with handle:
        rows = csv.reader(handle)
        try:
            yield from _csv_rows(path, rows)
        except csv.Error as exc:
            raise TaskFileError(f"{path}:{rows.line_num}: unreadable CSV ({exc})") from exc
        except UnicodeDecodeError as exc:
            raise TaskFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc


def _csv_rows(path: Path, rows: Any) -> Iterator[RawRecord]:
    header = next(rows, None)
    while header is not None and not any(cell.strip() for cell in header):
        header = next(rows, None)  # blank lines before the header
    if header is None:
        return
    index, line = 0, rows.line_num + 1
    for row in rows:
        where = Where(str(path), line=line)
        line = rows.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            message = f"{len(row)} fields, but the header has {len(header)}"
            yield RawRecord(where, index, error=RecordError(BAD_ROW, message))
        else:
            yield RawRecord(where, index, data=dict(zip(header, row, strict=True)))
        index += 1


def read_parquet(path: Path) -> Iterator[RawRecord]:
    """A parquet file (how Hugging Face datasets ship), in batches; rows count from 0."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise TaskFileError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from exc
    try:
        parquet = pq.ParquetFile(path)
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror or exc}") from exc
    except Exception as exc:  # pyarrow raises ArrowInvalid for a file that is not parquet
        raise TaskFileError(f"{path}: not a parquet file ({exc})") from exc
    index = 0
    with parquet:
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH):
            for row in batch.to_pylist():
                yield RawRecord(Where(str(path), row=index), index, data=row)
                index += 1
