"""Reading the records of a WARC or ARC file with warcio, as far as the file allows.

Each record is read whole into a ``Record`` (the HTTP payload still as stored: chunked or
compressed). A record shorter than its Content-Length is skipped with the reason. When
warcio cannot find the next record, reading stops there and one ``Skipped`` says where, how
many records came before, and why; a gzipped file whose gzip members do not line up with its
records (one gzip stream around the whole file, or members cut mid-record) is then read a
second time as one decompressed stream, which recovers all of it.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, cast

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders

from webdojo.cache.importing import Skipped
from webdojo.errors import ArchiveError

# records whose type and target make an HTTP exchange; the rest (warcinfo, metadata,
# conversion, dns: responses, file: resources) are counted and left out
_HTTP_TYPES = {"request", "response", "revisit", "resource"}

# what warcio writes on stderr when a gzip member does not decompress (then it reads nothing)
_GZIP_ERROR = "while decompressing data:"


@dataclass(frozen=True)
class Record:
    kind: str  # request, response, revisit or resource
    offset: int  # of the record in the file (of its gzip member, if gzipped)
    uri: str  # WARC-Target-URI
    record_id: str
    concurrent: tuple[str, ...]  # WARC-Concurrent-To ids
    date: float  # WARC-Date, Unix seconds (0 if unreadable)
    http: StatusAndHeaders | None  # the HTTP status line and headers, if the record has them
    payload: bytes  # what follows the HTTP headers, as stored
    digest: str | None  # WARC-Payload-Digest
    refers_uri: str | None  # WARC-Refers-To-Target-URI (revisits)
    content_type: str  # the record's own Content-Type (used for resource records)
    notes: tuple[str, ...] = ()  # what was odd about the record itself


@dataclass
class Scan:
    records: list[Record] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)  # record kind -> count
    stopped: str | None = None  # why reading ended before the end of the file
    corrupt_at: int | None = None  # offset of a gzip member that did not decompress

    def extend(self, other: Scan) -> None:
        self.records += other.records
        self.skipped += other.skipped
        self.notes += other.notes
        for kind, n in other.ignored.items():
            self.ignored[kind] = self.ignored.get(kind, 0) + n
        self.stopped, self.corrupt_at = other.stopped, other.corrupt_at


def scan(path: Path) -> Scan:
    """All readable records of a file, falling back to a whole-stream read for a gzip file
    whose members do not line up with its records."""
    result = _scan_open(path, stream=False)
    if result.stopped is None or not _is_gzip(path):
        return result
    second = _scan_open(path, stream=True)
    if second.stopped is None or len(second.records) > len(result.records):
        second.notes.insert(
            0,
            f"gzip members do not line up with records ({result.stopped}); "
            "read again as one decompressed stream (offsets are in that stream)",
        )
        return second
    return result


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _scan_open(path: Path, stream: bool) -> Scan:
    try:
        with path.open("rb") as raw:
            if stream:
                return _scan_stream(path, cast(IO[bytes], gzip.GzipFile(fileobj=raw)))
            out = _scan_stream(path, raw)
            while out.corrupt_at is not None:  # resync at the next gzip member
                start = _next_member(raw, out.corrupt_at + 1)
                if start is None:
                    break
                raw.seek(start)
                out.extend(_scan_stream(path, raw))
            return out
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot read: {exc}", file=str(path)) from exc


def _next_member(fh: IO[bytes], start: int) -> int | None:
    """Offset of the next gzip member header (magic, deflate method) at or after ``start``."""
    fh.seek(start)
    data = fh.read()
    found = data.find(b"\x1f\x8b\x08")
    return None if found < 0 else start + found


def _scan_stream(path: Path, fh: IO[bytes]) -> Scan:
    out = Scan()
    warnings = io.StringIO()
    iterator = ArchiveIterator(fh, arc2warc=True)
    # warcio reports suspect records on stderr (and a corrupt gzip member there only)
    with contextlib.redirect_stderr(warnings):
        records = iter(iterator)
        while True:
            try:
                record = next(records)
            except StopIteration:
                break
            except (ArchiveLoadFailed, ValueError, EOFError, OSError) as exc:
                out.stopped = _one_line(str(exc)) or type(exc).__name__
                out.skipped.append(
                    Skipped(
                        str(path),
                        f"offset {iterator.offset}",
                        f"unreadable from here on, rest of file not imported: {out.stopped} "
                        f"({len(out.records)} records read before)",
                    )
                )
                break
            seen, kept, skipped = len(warnings.getvalue()), len(out.records), len(out.skipped)
            _take(path, record, iterator, out)
            error = warnings.getvalue()[seen:]
            if _GZIP_ERROR in error:
                del out.records[kept:], out.skipped[skipped:]
                out.corrupt_at = iterator.get_record_offset()
                reason = _one_line(error.split(_GZIP_ERROR)[1].split("Error")[0])
                out.skipped.append(
                    Skipped(
                        str(path),
                        f"offset {out.corrupt_at}",
                        f"corrupt gzip data in this record ({reason}): "
                        "skipped to the next gzip member",
                    )
                )
                break
    kept_warnings = [w for w in warnings.getvalue().split("\n\n") if _GZIP_ERROR not in w]
    out.notes += [f"warcio: {_one_line(w)}" for w in kept_warnings if w.strip()]
    return out


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _take(path: Path, record: ArcWarcRecord, iterator: ArchiveIterator, out: Scan) -> None:
    """Read one record whole (before asking its offset: warcio reads to the end for that)."""
    payload = record.raw_stream.read()
    missing = getattr(record.raw_stream, "limit", 0)
    offset = iterator.get_record_offset()
    kind = record.rec_type
    uri = _target(record)
    if not kind:
        out.skipped.append(Skipped(str(path), f"offset {offset}", "record has no WARC-Type"))
        return
    if kind not in _HTTP_TYPES or not uri.lower().startswith(("http://", "https://")):
        out.ignored[kind] = out.ignored.get(kind, 0) + 1
        return
    notes: tuple[str, ...] = ()
    if missing:
        declared = record.rec_headers.get_header("Content-Length")
        short = f"record {missing} bytes shorter than its declared length {declared}"
        if not _http_body_complete(record, payload):
            out.skipped.append(Skipped(str(path), f"offset {offset}", f"{kind} for {uri}: {short}"))
            return
        notes = (f"{short}; the HTTP body is whole (its Content-Length): kept",)
    out.records.append(_record(record, kind, uri, offset, payload, notes))


def _http_body_complete(record: ArcWarcRecord, payload: bytes) -> bool:
    """Whether a short record still holds its whole HTTP body: some ARC writers counted CRLF
    line ends that the file has as LF, so the record length overstates."""
    http = record.http_headers
    length = http.get_header("Content-Length") if http is not None else None
    chunked = http is not None and http.get_header("Transfer-Encoding")
    return bool(length and length.strip().isdigit() and not chunked) and len(payload) >= int(
        str(length)
    )


def _target(record: ArcWarcRecord) -> str:
    uri = record.rec_headers.get_header("WARC-Target-URI") or ""
    return uri.strip().strip("<>")


def _record(
    record: ArcWarcRecord, kind: str, uri: str, offset: int, payload: bytes, notes: tuple[str, ...]
) -> Record:
    headers = record.rec_headers
    concurrent = tuple(
        v.strip().strip("<>") for k, v in headers.headers if k.lower() == "warc-concurrent-to"
    )
    return Record(
        kind=kind,
        offset=offset,
        uri=uri,
        record_id=(headers.get_header("WARC-Record-ID") or "").strip().strip("<>"),
        concurrent=concurrent,
        date=warc_date(headers.get_header("WARC-Date")),
        http=record.http_headers,
        payload=payload,
        digest=headers.get_header("WARC-Payload-Digest"),
        refers_uri=headers.get_header("WARC-Refers-To-Target-URI"),
        content_type=headers.get_header("Content-Type") or "",
        notes=notes,
    )


def warc_date(text: str | None) -> float:
    """WARC-Date (ISO 8601, UTC) as Unix seconds; 0 when absent or unreadable."""
    if not text:
        return 0.0
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        return 0.0
