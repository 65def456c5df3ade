"""HAR files (Chrome, Firefox, Safari, Firebug, Charles, Insomnia, mitmproxy) as Exchanges.

HAR 1.2 is loosely followed; what this reader accepts beyond the letter of it, and why:

* a byte-order mark (UTF-8 or UTF-16): Windows tools write one;
* no ``log`` wrapper: a bare ``{"entries": [...]}`` or one bare entry object is read, with a
  note (haralyzer keeps such files; refusing them would lose good exchanges);
* no pages, no ``pageref``: pages are not needed for replay;
* bodies: ``content.text`` as text (re-encoded in the charset the response declared) or
  base64 (``content.encoding``); absent text means the tool did not keep the body: the
  exchange is kept with an empty body and a note;
* browsers record the decoded body but keep ``Content-Encoding: gzip``: the header is dropped.
  A body that is really still compressed (gzip bytes under that header) is decoded; one that
  does not decode is a skipped entry, with the reason;
* HTTP/2 pseudo-headers (``:authority``...) are dropped; the URL fragment is removed;
* a request's ``cookies`` become a Cookie header only when it has none;
* entries with no response (status 0, blocked or failed), websocket connections and non-HTTP
  URLs (``data:``, ``blob:``) are skipped with the reason.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from webdojo.cache import content_coding as cc
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange, Headers, header
from webdojo.cache.importing import ImportResult, Skipped
from webdojo.errors import ArchiveError

_KNOWN_VERSIONS = {"1.1", "1.2"}


class _Skip(Exception):
    """This entry cannot become an exchange; the message says why."""


def read_har(path: Path, data: bytes) -> ImportResult:
    """Every entry of a HAR file, ordered by ``startedDateTime``."""
    entries, notes = _entries(path, _load_json(path, data))
    result = ImportResult(files=[str(path)], notes=[f"{path}: {n}" for n in notes])
    made: list[Exchange] = []
    for i, entry in enumerate(entries):
        try:
            made.append(_exchange(entry))
        except _Skip as exc:
            result.skipped.append(Skipped(str(path), f"entry {i}", str(exc)))
    made.sort(key=lambda x: x.started)  # stable: equal times keep file order
    result.exchanges = [_with_seq(x, i) for i, x in enumerate(made)]
    result.counts[str(path)] = len(made)
    return result


def _with_seq(x: Exchange, seq: int) -> Exchange:
    return Exchange(x.request, x.response, visit=0, seq=seq, started=x.started, notes=x.notes)


def _load_json(path: Path, data: bytes) -> Any:
    codec = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        raise ArchiveError(
            f"{path}: not UTF-8 text (byte {exc.start}): a HAR file is JSON", file=str(path)
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        ended = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated")
        hint = f" (the file ends unfinished at character {len(text)}: truncated?)" if ended else ""
        raise ArchiveError(
            f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}",
            file=str(path),
        ) from exc


def _entries(path: Path, doc: Any) -> tuple[list[Any], list[str]]:
    """The entry list and what was unusual about the file's shape."""
    if isinstance(doc, dict) and isinstance(doc.get("log"), dict):
        log = doc["log"]
        if not isinstance(log.get("entries"), list):
            raise ArchiveError(f"{path}: HAR has no log.entries list", file=str(path))
        version = log.get("version")
        notes = []
        if version is not None and str(version) not in _KNOWN_VERSIONS:
            notes.append(f"HAR version {version!r} (this reader knows 1.1 and 1.2): read as 1.2")
        return log["entries"], notes
    if isinstance(doc, dict) and isinstance(doc.get("entries"), list):
        return doc["entries"], ["no 'log' wrapper: read the top-level 'entries'"]
    if isinstance(doc, dict) and "request" in doc and "response" in doc:
        return [doc], ["no 'log' wrapper: the file is one bare entry, read as such"]
    raise ArchiveError(f"{path}: JSON but not a HAR: {_shape(doc)}", file=str(path))


def _shape(doc: Any) -> str:
    if isinstance(doc, dict):
        return f"no 'log.entries'; top-level keys: {', '.join(list(doc)[:8]) or 'none'}"
    if isinstance(doc, list):
        first = doc[0] if doc else None
        keys = ", ".join(list(first)[:6]) if isinstance(first, dict) else type(first).__name__
        return f"top level is a list of {len(doc)} items (first: {keys}), not an object"
    return f"top level is a {type(doc).__name__}, not an object"


def _exchange(entry: Any) -> Exchange:
    if not isinstance(entry, dict):
        raise _Skip(f"entry is a {type(entry).__name__}, not an object")
    req, resp = _obj(entry, "request"), _obj(entry, "response")
    if entry.get("_webSocketMessages") is not None or _is_upgrade(resp, "websocket"):
        count = len(entry.get("_webSocketMessages") or [])
        raise _Skip(f"websocket connection ({count} messages): not an HTTP exchange")
    notes: list[str] = []
    request = _request(req, notes)
    status = resp.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or status <= 0:
        error = resp.get("_error") or entry.get("_error")
        raise _Skip(f"no response recorded (status {status!r})" + (f": {error}" if error else ""))
    response = _response(resp, request.method, notes)
    return Exchange(request, response, started=_started(entry, notes), notes=tuple(notes))


def _obj(parent: dict[str, Any], key: str) -> dict[str, Any]:
    value = parent.get(key)
    if not isinstance(value, dict):
        raise _Skip(f"no '{key}' object")
    return value


def _is_upgrade(resp: dict[str, Any], protocol: str) -> bool:
    if resp.get("status") != 101:
        return False
    upgrade = header(_headers(resp.get("headers")), "upgrade") or ""
    return upgrade.lower() == protocol


def _started(entry: dict[str, Any], notes: list[str]) -> float:
    text = entry.get("startedDateTime")
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        notes.append(f"startedDateTime {text!r} unreadable: time 0")
        return 0.0


def _headers(raw: Any) -> Headers:
    """HAR headers: a list of {name, value}; some tools write [name, value] pairs or a map."""
    pairs: Iterable[Any]
    if isinstance(raw, dict):
        pairs = raw.items()
    elif isinstance(raw, list):
        pairs = [(h.get("name"), h.get("value")) if isinstance(h, dict) else h for h in raw]
    else:
        return ()
    out = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not pair[0]:
            raise _Skip(f"malformed header {pair!r}")
        out.append((str(pair[0]), "" if pair[1] is None else str(pair[1])))
    return cc.without_pseudo(tuple(out))


def _request(req: dict[str, Any], notes: list[str]) -> CapturedRequest:
    method, url = req.get("method"), req.get("url")
    if not isinstance(method, str) or not method or not isinstance(url, str) or not url:
        raise _Skip("request has no method or no url")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise _Skip(f"not an HTTP URL: {url[:60]!r}")
    headers = _headers(req.get("headers"))
    cookies = req.get("cookies")
    if header(headers, "cookie") is None and isinstance(cookies, list) and cookies:
        pairs = [f"{c.get('name')}={c.get('value', '')}" for c in cookies if isinstance(c, dict)]
        headers = (*headers, ("Cookie", "; ".join(pairs)))
    body = _post_body(req.get("postData"), notes)
    return CapturedRequest(
        method=method.upper(),
        url=urlunsplit(parts._replace(fragment="")),
        headers=headers,
        body=body,
    )


def _post_body(post: Any, notes: list[str]) -> bytes:
    if not isinstance(post, dict):
        return b""
    text = post.get("text")
    if isinstance(text, str) and text:
        if post.get("encoding") == "base64":
            return _b64(text, "postData.text")
        return text.encode("utf-8")
    params = post.get("params")
    if isinstance(params, list) and params:
        mime = str(post.get("mimeType") or "")
        fields = [(str(p.get("name", "")), str(p.get("value", ""))) for p in params]
        if mime.startswith("multipart/"):
            notes.append("multipart request body recorded as params only: body left empty")
            return b""
        return urlencode(fields).encode("ascii")
    return b""


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _Skip(f"{what} is not valid base64: {exc}") from exc


def _response(resp: dict[str, Any], method: str, notes: list[str]) -> CapturedResponse:
    status = int(resp["status"])
    headers = _headers(resp.get("headers"))
    content = resp.get("content")
    if not isinstance(content, dict):
        content = {}
    body = _content_bytes(content, headers, notes)
    applied = cc.codings(headers, "content-encoding")
    if applied and cc.still_encoded(body, applied[-1]):
        try:
            body = cc.decode_all(body, applied)
        except cc.CodingError as exc:
            raise _Skip(f"response body {exc}") from exc
        notes.append(f"body was still {'+'.join(applied)}-encoded: decoded")
    size = content.get("size")
    if not body and isinstance(size, int) and size > 0 and method != "HEAD":
        notes.append(f"body not recorded by the tool ({size} bytes): stored empty")
    headers = cc.settle_response_headers(headers, body, method, status)
    return CapturedResponse(status, headers, body, str(resp.get("statusText") or ""))


def _content_bytes(content: dict[str, Any], headers: Headers, notes: list[str]) -> bytes:
    text = content.get("text")
    if not isinstance(text, str) or not text:
        return b""
    encoding = content.get("encoding")
    if encoding == "base64":
        return _b64(text, "content.text")
    if encoding:
        raise _Skip(f"unknown content.encoding {encoding!r}")
    if text.startswith("\x1f\x8b") and max(map(ord, text)) < 256:
        return text.encode("latin-1")  # raw gzip bytes kept as code points
    charset = _charset(header(headers, "content-type") or str(content.get("mimeType") or ""))
    try:
        return text.encode(charset or "utf-8")
    except (LookupError, UnicodeEncodeError):
        notes.append(f"body text does not fit declared charset {charset!r}: stored as UTF-8")
        return text.encode("utf-8")


def _charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None
