"""Turning captures made elsewhere (HAR, WARC, ARC files) into ``Exchange`` records.

``import_files`` looks at each file's bytes, not its name, to pick a reader: JSON (a HAR,
possibly gzipped, possibly with a byte-order mark) or a WARC/ARC (plain or gzipped). A file
that cannot be read at all raises ``ArchiveError`` naming it; a file that is partly bad is
imported as far as that is safe, and every record left out is listed in ``skipped`` with
where it was and why.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from webdojo.cache.exchange import Exchange
from webdojo.errors import ArchiveError

Kind = Literal["har", "warc"]

# what warcio reads
_WARC_VERSIONS = {"WARC/0.17", "WARC/0.18", "WARC/1.0", "WARC/1.1"}


@dataclass(frozen=True)
class Skipped:
    """One record of an input file that was not imported."""

    file: str  # the file as given
    where: str  # "entry 12" (HAR, 0-based) or "offset 4096" (WARC/ARC, byte offset)
    reason: str  # precise, for people


@dataclass
class ImportResult:
    exchanges: list[Exchange] = field(default_factory=list)  # in file order, then capture order
    skipped: list[Skipped] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the files read, as given
    notes: list[str] = field(default_factory=list)  # file-level remarks ("file: ...")
    counts: dict[str, int] = field(default_factory=dict)  # exchanges imported per file

    def extend(self, other: ImportResult) -> None:
        self.exchanges += other.exchanges
        self.skipped += other.skipped
        self.files += other.files
        self.notes += other.notes
        self.counts.update(other.counts)


def sniff(path: Path, head: bytes) -> Kind:
    """Which reader a file needs, from its first bytes (gzip is looked inside)."""
    inner = head
    if head[:2] == b"\x1f\x8b":
        try:
            inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head)
        except zlib.error as exc:
            raise ArchiveError(
                f"{path}: gzip, but its start does not decompress: {exc}", file=str(path)
            ) from exc
        if not inner:
            raise ArchiveError(
                f"{path}: gzip, but its start decompresses to nothing readable", file=str(path)
            )
    if inner[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its byte-order mark
        inner = inner[: len(inner) // 2 * 2].decode("utf-16", "replace").encode("utf-8")
    text = inner.lstrip(b"\xef\xbb\xbf").lstrip()
    if text[:1] in (b"{", b"["):
        return "har"
    if text.startswith(b"WARC/"):
        version = text.split(b"\n", 1)[0].strip().decode("ascii", "replace")
        if version not in _WARC_VERSIONS:
            raise ArchiveError(
                f"{path}: {version!r} is a WARC version this reader does not know "
                f"(it reads {', '.join(sorted(_WARC_VERSIONS))})",
                file=str(path),
            )
        return "warc"
    if text.startswith(b"filedesc://"):
        return "warc"  # ARC, read by the same reader
    if not text:
        raise ArchiveError(f"{path}: the file is empty", file=str(path))
    raise ArchiveError(
        f"{path}: neither a HAR (JSON) nor a WARC/ARC file; it starts with {text[:24]!r}",
        file=str(path),
    )


def read_bytes(path: Path) -> bytes:
    """The whole file, gunzipped if it is gzip (used for HAR; WARC is streamed)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot read: {exc.strerror}", file=str(path)) from exc
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"{path}: gzip does not decompress: {exc}", file=str(path)) from exc
    return data


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(512)
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot read: {exc.strerror}", file=str(path)) from exc


def import_files(paths: Sequence[Path]) -> ImportResult:
    """All files, in the order given; ``seq`` numbers the exchanges across them."""
    # the readers import this module for the result types, hence imported here
    from webdojo.cache.har_import import read_har
    from webdojo.cache.warc_import import PayloadStore, read_warc

    result = ImportResult()
    payloads = PayloadStore()  # a revisit may point at a payload of an earlier file
    for path in paths:
        if sniff(path, _head(path)) == "har":
            result.extend(read_har(path, read_bytes(path)))
        else:
            result.extend(read_warc(path, payloads))
    result.exchanges = [replace(x, seq=i) for i, x in enumerate(result.exchanges)]
    return result
