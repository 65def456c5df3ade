"""Undoing what HTTP did to a body on the wire, strictly, for the importers.

An ``Exchange`` keeps response bodies decoded, so an importer that finds a body still in
chunked transfer coding or under a Content-Encoding must decode it and then make the headers
tell the truth: no Content-Encoding, no Transfer-Encoding, a Content-Length equal to the
stored body. Decoding here is strict on purpose: a gzip stream that stops early or has junk
inside raises ``CodingError`` with what went wrong, so that the importer can skip that one
record with a precise reason instead of storing half a page.
"""

from __future__ import annotations

import zlib

import brotli

from webdojo.cache.exchange import Headers

GZIP_MAGIC = b"\x1f\x8b"

# statuses whose responses never carry a body, whatever Content-Length says
_BODILESS = {204, 304}


class CodingError(ValueError):
    """A body that does not decode as its coding says."""


def dechunk(data: bytes) -> bytes:
    """The payload of a chunked body (RFC 9112 7.1); trailers are dropped."""
    out = bytearray()
    pos = 0
    while True:
        eol = data.find(b"\r\n", pos)
        if eol < 0:
            raise CodingError(f"chunked body ends inside a chunk-size line at byte {pos}")
        size_text = data[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise CodingError(
                f"chunked body has a bad chunk size {size_text[:20]!r} at byte {pos}"
            ) from None
        if size == 0:
            return bytes(out)
        start = eol + 2
        if start + size > len(data):
            raise CodingError(
                f"chunked body truncated: chunk of {size} bytes at byte {pos}, "
                f"{len(data) - start} left"
            )
        out += data[start : start + size]
        pos = start + size + 2  # the CRLF after the chunk data


def looks_chunked(data: bytes) -> bool:
    """Whether a body that claims chunked coding really starts with a chunk-size line (some
    crawlers stored the de-chunked payload but kept the header)."""
    eol = data.find(b"\r\n", 0, 40)
    if eol <= 0:
        return False
    size = data[:eol].split(b";", 1)[0].strip()
    return bool(size) and all(c in b"0123456789abcdefABCDEF" for c in size)


def _inflate(data: bytes, wbits: int, name: str) -> bytes:
    decomp = zlib.decompressobj(wbits)
    try:
        out = decomp.decompress(data) + decomp.flush()
    except zlib.error as exc:
        raise CodingError(f"{name} body does not decode: {exc}") from exc
    if not decomp.eof:
        raise CodingError(f"{name} body is truncated ({len(data)} bytes, stream not ended)")
    return out


def _gunzip(data: bytes) -> bytes:
    # several gzip members one after the other are one body (RFC 1952 2.2)
    out = bytearray()
    while data:
        decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += decomp.decompress(data) + decomp.flush()
        except zlib.error as exc:
            raise CodingError(f"gzip body does not decode: {exc}") from exc
        if not decomp.eof:
            raise CodingError(f"gzip body is truncated ({len(data)} bytes, stream not ended)")
        data = decomp.unused_data.lstrip(b"\x00")
    return bytes(out)


def decode(data: bytes, coding: str) -> bytes:
    """``data`` with one content coding removed. Unknown codings raise ``CodingError``."""
    coding = coding.strip().lower()
    if coding in ("", "identity"):
        return data
    if coding in ("gzip", "x-gzip"):
        return _gunzip(data)
    if coding == "deflate":
        # servers send either zlib-wrapped or raw deflate under this name
        wbits = zlib.MAX_WBITS if is_zlib(data) else -zlib.MAX_WBITS
        return _inflate(data, wbits, "deflate")
    if coding == "br":
        try:
            return bytes(brotli.decompress(data))
        except brotli.error as exc:
            raise CodingError(f"brotli body does not decode: {exc}") from exc
    raise CodingError(f"unknown Content-Encoding {coding!r}")


def still_encoded(body: bytes, last: str) -> bool:
    """Whether a body under a Content-Encoding header is really still encoded: browsers and
    some crawlers keep the header over the decoded body. gzip and zlib start with magic
    bytes; brotli has none, so a br body counts as encoded only if it decodes."""
    if not body:
        return False
    if last in ("gzip", "x-gzip"):
        return body[:2] == GZIP_MAGIC
    if last == "deflate":
        return is_zlib(body)
    if last == "br":
        try:
            decode(body, "br")
        except CodingError:
            return False
        return True
    return False


def is_zlib(data: bytes) -> bool:
    """The two-byte zlib header: deflate method and a valid check value."""
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


def codings(headers: Headers, name: str) -> list[str]:
    """The codings a header lists, in the order they were applied."""
    out: list[str] = []
    for key, value in headers:
        if key.lower() == name:
            out += [c.strip().lower() for c in value.split(",") if c.strip()]
    return [c for c in out if c != "identity"]


def decode_all(data: bytes, applied: list[str]) -> bytes:
    """Remove several codings, the last applied first."""
    for coding in reversed(applied):
        data = decode(data, coding)
    return data


def without(headers: Headers, *names: str) -> Headers:
    drop = {n.lower() for n in names}
    return tuple((k, v) for k, v in headers if k.lower() not in drop)


def without_pseudo(headers: Headers) -> Headers:
    """HTTP/2 and HTTP/3 pseudo-headers (``:authority``...) are not headers of the message."""
    return tuple((k, v) for k, v in headers if not k.startswith(":"))


def settle_response_headers(headers: Headers, body: bytes, method: str, status: int) -> Headers:
    """Headers that describe the stored, decoded body: no Content-Encoding or
    Transfer-Encoding, and Content-Length (where there was one, or where chunking framed the
    body) equal to the body's length.
    A HEAD answer or a 1xx/204/304 keeps its Content-Length: it never described a body."""
    had_te = any(k.lower() == "transfer-encoding" for k, _ in headers)
    headers = without(headers, "content-encoding", "transfer-encoding")
    if method == "HEAD" or status < 200 or status in _BODILESS:
        return headers
    length = str(len(body))
    if had_te and not any(k.lower() == "content-length" for k, _ in headers):
        return (*headers, ("Content-Length", length))  # chunking gone: the length frames it
    return tuple((k, length if k.lower() == "content-length" else v) for k, v in headers)
