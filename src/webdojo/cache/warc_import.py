"""WARC and ARC files as Exchanges: requests paired with responses, revisits resolved.

* A response is paired with its request by WARC-Concurrent-To (either record may point at
  the other: crawlers differ), else with the earliest unpaired request for the same target
  URI. A response with no request gets a synthesized GET (ARC files never have requests).
* A ``revisit`` record (identical payload digest) gets the payload of the earlier response
  with the same WARC-Payload-Digest, in this file or an earlier one of the same import; its
  own status and headers are kept when it has them (a 304 of the server-not-modified
  profile takes the original's instead, a browser never asked for it conditionally).
* A ``resource`` record for an http(s) URI becomes a 200 response with its Content-Type.
* Payloads are de-chunked and their Content-Encoding removed, strictly; a payload that does
  not decode is a skipped record with the reason.
"""

from __future__ import annotations

import base64
import hashlib
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from webdojo.cache import content_coding as cc
from webdojo.cache.exchange import (
    CapturedRequest,
    CapturedResponse,
    Exchange,
    Headers,
    header,
)
from webdojo.cache.importing import ImportResult, Skipped
from webdojo.cache.warc_records import Record, scan
from webdojo.errors import ArchiveError


@dataclass
class PayloadStore:
    """Decoded responses by payload digest and by URI, for revisits to find."""

    by_digest: dict[str, CapturedResponse] = field(default_factory=dict)
    by_uri: dict[str, CapturedResponse] = field(default_factory=dict)

    def add(self, digest: str | None, uri: str, response: CapturedResponse) -> None:
        if digest:
            self.by_digest.setdefault(digest, response)
        self.by_uri[uri] = response

    def find(self, digest: str | None, uri: str) -> CapturedResponse | None:
        if digest and digest in self.by_digest:
            return self.by_digest[digest]
        return None if digest else self.by_uri.get(uri)


class _Skip(Exception):
    """This record cannot become an exchange; the message says why."""


def read_warc(path: Path, payloads: PayloadStore | None = None) -> ImportResult:
    """Every HTTP exchange of a WARC/ARC file, in the order of its responses."""
    found = scan(path)
    # nothing at all could be read: the file is not a WARC/ARC this reader can use
    if found.stopped and not found.records and not found.ignored and len(found.skipped) == 1:
        raise ArchiveError(f"{path}: not a readable WARC/ARC file: {found.stopped}", file=str(path))
    result = ImportResult(files=[str(path)], skipped=list(found.skipped))
    result.notes += [f"{path}: {n}" for n in found.notes]
    if found.ignored:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(found.ignored.items()))
        result.notes.append(f"{path}: ignored non-HTTP records: {kinds}")
    store = payloads if payloads is not None else PayloadStore()
    result.exchanges = _assemble(path, found.records, store, result.skipped)
    result.counts[str(path)] = len(result.exchanges)
    return result


def _assemble(
    path: Path, records: list[Record], store: PayloadStore, skipped: list[Skipped]
) -> list[Exchange]:
    requests = [r for r in records if r.kind == "request"]
    pairs = _pair(records, requests)
    made: list[Exchange] = []
    for rec in records:
        if rec.kind == "request":
            continue
        try:
            made.append(_exchange(rec, pairs.get(id(rec)), store))
        except _Skip as exc:
            skipped.append(Skipped(str(path), f"offset {rec.offset}", str(exc)))
    answered = {id(r) for r in pairs.values()}
    for req in requests:
        if id(req) not in answered:
            skipped.append(
                Skipped(str(path), f"offset {req.offset}", f"request for {req.uri}: no response")
            )
    return [_numbered(x, i) for i, x in enumerate(made)]


def _numbered(x: Exchange, seq: int) -> Exchange:
    return Exchange(x.request, x.response, visit=0, seq=seq, started=x.started, notes=x.notes)


def _pair(records: list[Record], requests: list[Record]) -> dict[int, Record]:
    """Response (by ``id()``) -> its request record."""
    by_id = {r.record_id: r for r in records if r.record_id}
    pairs: dict[int, Record] = {}
    taken: set[int] = set()
    answers = [r for r in records if r.kind in ("response", "revisit")]
    for req in requests:  # the request names its response (wget, pywb's iana crawl)
        for ref in req.concurrent:
            target = by_id.get(ref)
            if target is not None and target.kind in ("response", "revisit"):
                pairs.setdefault(id(target), req)
                taken.add(id(req))
    for resp in answers:  # the response names its request
        for ref in resp.concurrent:
            target = by_id.get(ref)
            if id(resp) not in pairs and target is not None and target.kind == "request":
                pairs[id(resp)] = target
                taken.add(id(target))
    waiting: dict[str, deque[Record]] = defaultdict(deque)
    for req in requests:
        if id(req) not in taken:
            waiting[req.uri].append(req)
    for resp in answers:  # neither names the other: same URI, in file order
        if id(resp) not in pairs and waiting[resp.uri]:
            pairs[id(resp)] = waiting[resp.uri].popleft()
    return pairs


def _exchange(rec: Record, req_rec: Record | None, store: PayloadStore) -> Exchange:
    notes: list[str] = list(rec.notes)
    request = _request(rec, req_rec, notes)
    if rec.kind == "revisit":
        response = _revisit(rec, store, request.method, notes)
    elif rec.kind == "resource":
        body = rec.payload
        headers = (("Content-Type", rec.content_type or "application/octet-stream"),)
        response = CapturedResponse(200, (*headers, ("Content-Length", str(len(body)))), body)
        notes.append("resource record: served as a 200 response")
    else:
        response = _response(rec, request.method, notes)
        store.add(rec.digest or _sha1(rec.payload), rec.uri, response)
    started = req_rec.date if req_rec is not None and req_rec.date else rec.date
    return Exchange(request, response, started=started, notes=tuple(notes))


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def _request(rec: Record, req_rec: Record | None, notes: list[str]) -> CapturedRequest:
    url = urlunsplit(urlsplit(rec.uri)._replace(fragment=""))
    if req_rec is None or req_rec.http is None:
        notes.append("no request record: a GET was synthesized")
        return CapturedRequest("GET", url)
    http = req_rec.http
    headers = cc.without_pseudo(tuple((k, v) for k, v in http.headers))
    body = req_rec.payload
    if "chunked" in cc.codings(headers, "transfer-encoding") and cc.looks_chunked(body):
        try:
            body = cc.dechunk(body)
        except cc.CodingError as exc:
            raise _Skip(f"request for {rec.uri}: {exc}") from exc
        headers = cc.without(headers, "transfer-encoding")
    method = (http.protocol or "GET").upper()
    return CapturedRequest(method, url, headers, body)


def _status(rec: Record) -> tuple[int, str, Headers]:
    http = rec.http
    if http is None:
        raise _Skip(f"{rec.kind} record for {rec.uri} has no HTTP status line and headers")
    code = http.get_statuscode() or ""
    if not code.isdigit():
        raise _Skip(f"{rec.kind} record for {rec.uri}: bad HTTP status line {http.statusline!r}")
    reason = http.statusline.partition(" ")[2].strip()
    return int(code), reason, cc.without_pseudo(tuple((k, v) for k, v in http.headers))


def _response(rec: Record, method: str, notes: list[str]) -> CapturedResponse:
    status, reason, headers = _status(rec)
    body = _within_length(rec.payload, headers, notes)
    try:
        if "chunked" in cc.codings(headers, "transfer-encoding"):
            if cc.looks_chunked(body):
                body = cc.dechunk(body)
            else:
                notes.append("Transfer-Encoding: chunked over a payload not chunked: kept")
        applied = cc.codings(headers, "content-encoding")
        if applied and cc.still_encoded(body, applied[-1]):
            body = cc.decode_all(body, applied)
        elif applied and body:
            notes.append(f"Content-Encoding {'+'.join(applied)} over a plain payload: kept")
    except cc.CodingError as exc:
        raise _Skip(f"response for {rec.uri}: {exc}") from exc
    headers = cc.settle_response_headers(headers, body, method, status)
    return CapturedResponse(status, headers, body, reason)


def _within_length(body: bytes, headers: Headers, notes: list[str]) -> bytes:
    """A payload cut to the HTTP Content-Length: what follows is record padding, not body."""
    length = header(headers, "content-length")
    if header(headers, "transfer-encoding") or not length or not length.strip().isdigit():
        return body
    if len(body) > int(length):
        notes.append(f"{len(body) - int(length)} bytes after the HTTP Content-Length dropped")
        return body[: int(length)]
    return body


def _revisit(rec: Record, store: PayloadStore, method: str, notes: list[str]) -> CapturedResponse:
    original = store.find(rec.digest, rec.refers_uri or rec.uri)
    if original is None:
        what = f"payload {rec.digest}" if rec.digest else "an earlier response"
        raise _Skip(f"revisit of {rec.uri}: {what} not found in the files imported so far")
    notes.append(f"revisit: payload of an earlier response ({rec.digest or 'same URI'})")
    if rec.http is None:
        return original
    status, reason, headers = _status(rec)
    if status == 304:
        notes.append("revisit was a 304: the original response is served")
        return original
    headers = cc.settle_response_headers(headers, original.body, method, status)
    return CapturedResponse(status, headers, original.body, reason)
