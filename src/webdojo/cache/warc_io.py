"""Exchanges in WARC: how the archive writes them and reads single records back.

Each exchange is a ``request`` record and a ``response`` record, linked by
``WARC-Concurrent-To``. Bodies are content-addressed: a response whose body (sha256) was
written before becomes a ``revisit`` record (the WARC standard's identical-payload profile)
that carries only its own status and headers. Bodies are stored decoded, so the stored HTTP
headers lose ``Content-Encoding`` and ``Transfer-Encoding`` and get a true ``Content-Length``.
Every gzip member holds one record, so a record can be read from its offset alone.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange, Headers
from webdojo.cache.normalize import digest
from webdojo.errors import ArchiveError

_DROP_RESPONSE = frozenset({"content-encoding", "transfer-encoding", "content-length"})
VISIT = "WebDojo-Visit"
SEQ = "WebDojo-Seq"
BODY = "WebDojo-Body-SHA256"
STARTED = "WebDojo-Started"


@dataclass(frozen=True)
class Written:
    request_offset: int
    response_offset: int
    body_offset: int  # the record that holds the body bytes (itself, or the one revisited)
    body_digest: str


class ExchangeWriter:
    """Appends exchanges to an open binary file as WARC records."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._writer = WARCWriter(stream, gzip=True)
        self._bodies: dict[str, tuple[int, str, str]] = {}  # digest -> offset, uri, date

    def add(self, exchange: Exchange) -> Written:
        req, resp = exchange.request, exchange.response
        extra = {
            VISIT: str(exchange.visit),
            SEQ: str(exchange.seq),
            STARTED: repr(exchange.started),
        }
        req_offset = self._stream.tell()
        request = self._writer.create_warc_record(
            req.url,
            "request",
            payload=io.BytesIO(req.body),
            http_headers=_request_headers(req),
            warc_headers_dict=extra,
        )
        self._write(request)
        body_digest = digest(resp.body)
        resp_offset = self._stream.tell()
        record = self._response_record(req.url, resp, body_digest, extra)
        record.rec_headers.add_header("WARC-Concurrent-To", request.rec_headers["WARC-Record-ID"])
        self._write(record)
        if body_digest not in self._bodies:
            self._bodies[body_digest] = (resp_offset, req.url, record.rec_headers["WARC-Date"])
        return Written(req_offset, resp_offset, self._bodies[body_digest][0], body_digest)

    def _write(self, record: ArcWarcRecord) -> None:
        self._writer.write_record(record)
        record.raw_stream.close()  # warcio buffers payloads in temporary files

    def _response_record(
        self, url: str, resp: CapturedResponse, body_digest: str, extra: dict[str, str]
    ) -> ArcWarcRecord:
        http = _response_headers(resp)
        extra = {**extra, BODY: body_digest}
        seen = self._bodies.get(body_digest)
        if seen is None:
            return self._writer.create_warc_record(
                url,
                "response",
                payload=io.BytesIO(resp.body),
                http_headers=http,
                warc_headers_dict=extra,
            )
        _, uri, date = seen
        record = self._writer.create_revisit_record(
            url, f"sha256:{body_digest}", uri, date, http_headers=http
        )
        for key, value in extra.items():
            record.rec_headers.add_header(key, value)
        return record


def _request_headers(req: CapturedRequest) -> StatusAndHeaders:
    parts = urlsplit(req.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = list(req.headers)
    if not any(k.lower() == "host" for k, _ in headers):
        headers.insert(0, ("Host", parts.netloc))
    return StatusAndHeaders(
        f"{req.method} {target}", headers, protocol="HTTP/1.1", is_http_request=True
    )


def _response_headers(resp: CapturedResponse) -> StatusAndHeaders:
    headers = [(k, v) for k, v in resp.headers if k.lower() not in _DROP_RESPONSE]
    headers.append(("Content-Length", str(len(resp.body))))
    status = f"{resp.status} {resp.reason}".strip() if resp.reason else str(resp.status)
    return StatusAndHeaders(status, headers, protocol="HTTP/1.1")


# --- reading ----------------------------------------------------------------------------


def read_record(stream: BinaryIO, offset: int) -> tuple[ArcWarcRecord, bytes]:
    """The record at ``offset`` and its payload bytes (empty for a revisit)."""
    stream.seek(offset)
    try:
        for record in ArchiveIterator(stream, no_record_parse=False):
            return record, record.raw_stream.read()
    except (ArchiveLoadFailed, OSError, EOFError, ValueError) as exc:
        raise ArchiveError(f"cannot read the WARC record at offset {offset}: {exc}") from exc
    raise ArchiveError(f"no WARC record at offset {offset}")


def headers_of(record: ArcWarcRecord) -> Headers:
    http = record.http_headers
    return tuple((k, v) for k, v in http.headers) if http is not None else ()


def request_of(record: ArcWarcRecord, body: bytes) -> CapturedRequest:
    method = (record.http_headers.protocol if record.http_headers else "GET") or "GET"
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    return CapturedRequest(method.upper(), url, headers_of(record), body)


def response_of(record: ArcWarcRecord, body: bytes) -> CapturedResponse:
    http = record.http_headers
    status_line = http.statusline if http is not None else "200"
    code, _, reason = status_line.partition(" ")
    return CapturedResponse(int(code), headers_of(record), body, reason)


def iter_exchanges(stream: BinaryIO) -> Iterator[tuple[Exchange, Written]]:
    """Every exchange of an archive's WARC, in order, with where its records are: how the
    index is rebuilt from the raw requests."""
    stream.seek(0)
    pending: dict[str, tuple[ArcWarcRecord, bytes, int]] = {}
    bodies: dict[str, tuple[int, bytes]] = {}
    iterator = ArchiveIterator(stream)
    for record in iterator:
        body = record.raw_stream.read()
        offset = iterator.get_record_offset()
        rid = record.rec_headers.get_header("WARC-Record-ID")
        if record.rec_type == "request":
            pending[rid] = (record, body, offset)
            continue
        if record.rec_type not in ("response", "revisit"):
            continue
        req_record, req_body, req_offset = pending.pop(
            record.rec_headers.get_header("WARC-Concurrent-To") or "", (None, b"", -1)
        )
        body_digest = record.rec_headers.get_header(BODY) or digest(body)
        if record.rec_type == "response":
            bodies.setdefault(body_digest, (offset, body))
        body_offset, payload = bodies.get(body_digest, (offset, body))
        if req_record is None:
            raise ArchiveError(f"response record at offset {offset} has no request record")
        exchange = Exchange(
            request_of(req_record, req_body),
            response_of(record, payload),
            visit=int(record.rec_headers.get_header(VISIT) or 0),
            seq=int(record.rec_headers.get_header(SEQ) or 0),
            started=float(record.rec_headers.get_header(STARTED) or 0.0),
        )
        yield exchange, Written(req_offset, offset, body_offset, body_digest)
