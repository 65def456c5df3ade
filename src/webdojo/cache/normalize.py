"""One normalizer for stored and incoming requests: a request becomes named fields.

A request is split into its endpoint (method, host, path) and a flat list of fields, each with
a place (``where``), a name and a value:

- ``query`` and ``form``: decoded parameters, repeats kept;
- ``json``: the body flattened to leaf paths (``items.0.id``), so key order does not matter;
- ``multipart``: text parts by name, file parts by name with a digest of their bytes;
- ``header``: only headers a site chose to send (``x-*``, authorization, content type); what
  every browser sends (user agent, accept, sec-*) says nothing about which response is meant;
- ``cookie``: each cookie of the Cookie header.

Any other body is one ``body`` field holding its digest. Matching levels compare these fields
after rules drop or mask some of them (``webdojo.cache.rules``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from webdojo.cache.exchange import CapturedRequest, header

Where = Literal["query", "form", "json", "multipart", "header", "cookie", "body"]
WHERES: tuple[str, ...] = ("query", "form", "json", "multipart", "header", "cookie", "body")

# Request headers every browser sends on its own: never part of a request's identity.
_BROWSER_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-length",
        "cookie",  # split into cookie fields instead
        "dnt",
        "host",
        "if-modified-since",
        "if-none-match",
        "origin",
        "pragma",
        "priority",
        "purpose",
        "referer",
        "range",
        "te",
        "upgrade-insecure-requests",
        "user-agent",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_MAX_JSON_FIELDS = 2000  # a huge JSON body is keyed by digest past this many leaves


@dataclass(frozen=True, order=True)
class Field:
    where: str
    name: str
    value: str


@dataclass(frozen=True)
class Endpoint:
    method: str
    host: str  # lower case, with ":port" only when it is not the scheme's default
    path: str  # as sent, percent-encoding kept

    def __str__(self) -> str:
        return f"{self.method} {self.host}{self.path}"


@dataclass(frozen=True)
class NormalRequest:
    endpoint: Endpoint
    scheme: str
    fields: tuple[Field, ...]  # sorted

    def named(self, where: str, name: str) -> list[str]:
        return [f.value for f in self.fields if f.where == where and f.name == name]


def normalize(request: CapturedRequest) -> NormalRequest:
    """The endpoint and the sorted fields of a request."""
    parts = urlsplit(request.url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if parts.port is not None and parts.port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{parts.port}"
    fields = [Field("query", k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    fields += _body_fields(request)
    fields += _header_fields(request)
    endpoint = Endpoint(request.method.upper(), host, parts.path or "/")
    return NormalRequest(endpoint, scheme, tuple(sorted(fields)))


def _header_fields(request: CapturedRequest) -> list[Field]:
    out: list[Field] = []
    for name, value in request.headers:
        lower = name.lower()
        if lower == "cookie":
            out += [Field("cookie", k, v) for k, v in _cookies(value)]
        elif lower == "content-type":
            out.append(Field("header", lower, value.split(";")[0].strip().lower()))
        elif lower not in _BROWSER_HEADERS and not lower.startswith(("sec-", ":")):
            out.append(Field("header", lower, value.strip()))
    return out


def _cookies(value: str) -> list[tuple[str, str]]:
    pairs = []
    for part in value.split(";"):
        name, sep, val = part.strip().partition("=")
        if name:
            pairs.append((name, val if sep else ""))
    return pairs


def _body_fields(request: CapturedRequest) -> list[Field]:
    body = request.body
    if not body:
        return []
    raw_ctype = header(request.headers, "content-type") or ""
    ctype = raw_ctype.lower()
    if "application/x-www-form-urlencoded" in ctype:
        text = body.decode("utf-8", "replace")
        return [Field("form", k, v) for k, v in parse_qsl(text, keep_blank_values=True)]
    if "multipart/form-data" in ctype:
        parts = _multipart(body, raw_ctype)  # the boundary is case-sensitive
        if parts is not None:
            return parts
    if "json" in ctype or body[:1] in (b"{", b"["):
        leaves = _json_leaves(body)
        if leaves is not None:
            return [Field("json", k, v) for k, v in leaves]
    return [Field("body", "digest", digest(body))]


def _json_leaves(body: bytes) -> list[tuple[str, str]] | None:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    out: list[tuple[str, str]] = []
    _flatten(data, "", out)
    return out if len(out) <= _MAX_JSON_FIELDS else None


def _flatten(value: Any, prefix: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            _flatten(item, f"{prefix}.{i}" if prefix else str(i), out)
    else:
        out.append((prefix or "$", json.dumps(value, sort_keys=True, ensure_ascii=False)))


def _multipart(body: bytes, ctype: str) -> list[Field] | None:
    head = f"Content-Type: {ctype}\r\n\r\n".encode()
    try:
        message = BytesParser(policy=HTTP).parsebytes(head + body)
    except (ValueError, TypeError):
        return None
    if not message.is_multipart():
        return None
    out: list[Field] = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition") or ""
        raw = part.get_payload(decode=True)
        payload = raw if isinstance(raw, bytes) else b""
        if part.get_filename():
            out.append(Field("multipart", str(name), f"file:{digest(payload)}"))
        else:
            out.append(Field("multipart", str(name), payload.decode("utf-8", "replace")))
    return out


def digest(data: bytes) -> str:
    """The content address used throughout the cache (sha256, hex)."""
    return hashlib.sha256(data).hexdigest()


def signature(endpoint: Endpoint, fields: tuple[Field, ...] | list[Field]) -> str:
    """A short stable key for an endpoint with some fields: equal requests, equal keys."""
    text = json.dumps([str(endpoint), sorted((f.where, f.name, f.value) for f in fields)])
    return hashlib.sha1(text.encode()).hexdigest()


def exact_key(request: CapturedRequest) -> str:
    """Level 0: method, URL (without fragment) and body bytes, exactly."""
    url = request.url.split("#", 1)[0]
    return hashlib.sha1(
        f"{request.method.upper()} {url} {digest(request.body)}".encode()
    ).hexdigest()
