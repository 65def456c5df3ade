"""Making a recorded response fit the moment it is replayed.

- ``Date`` becomes now; ``Expires``, ``Last-Modified`` and cookie ``expires=`` move by the
  same amount, so a cookie that was valid for a day when recorded is valid for a day now, not
  expired for a month.
- Headers the browser must compute itself (length, encoding: bodies are stored decoded) go.
- A JSONP body calls the callback the page asked for this time, not the recorded one.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

from webdojo.cache.exchange import Headers, header
from webdojo.cache.normalize import NormalRequest

_DROP = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection"})
_SHIFTED = frozenset({"expires", "last-modified"})
_COOKIE_EXPIRES = re.compile(r"(?i)(expires=)([^;]+)")
JSONP_PARAMS = ("callback", "jsonp", "jsoncallback")
_IDENT = re.compile(r"[A-Za-z_$][\w$.]*")


def _parse(value: str) -> datetime | None:
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _http_date(when: datetime) -> str:
    return format_datetime(when.astimezone(UTC), usegmt=True)


def freshen(headers: Headers, now: datetime | None = None) -> list[tuple[str, str]]:
    """The headers to replay: dates shifted to now, computed headers dropped."""
    now = now or datetime.now(UTC)
    recorded = _parse(header(headers, "date") or "")
    shift = (now - recorded) if recorded else timedelta(0)
    out: list[tuple[str, str]] = []
    for name, value in headers:
        lower = name.lower()
        if lower in _DROP:
            continue
        if lower == "date":
            value = _http_date(now)
        elif lower in _SHIFTED and (when := _parse(value)):
            value = _http_date(when + shift)
        elif lower == "set-cookie":
            value = _COOKIE_EXPIRES.sub(lambda m: m.group(1) + _shift(m.group(2), shift), value)
        out.append((name, value))
    return out


def _shift(value: str, shift: timedelta) -> str:
    when = _parse(value.strip())
    return _http_date(when + shift) if when else value


def fulfil_headers(headers: list[tuple[str, str]]) -> dict[str, str]:
    """Playwright's fulfil takes a dict: repeated headers are joined, ``Set-Cookie`` with
    newlines (which Playwright splits again), the others with commas."""
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in out:
            out[key] += ("\n" if key == "set-cookie" else ", ") + value
        else:
            out[key] = value
    return out


def rename_jsonp(body: bytes, incoming: NormalRequest, recorded: NormalRequest) -> bytes:
    """Replace the recorded callback name at the start of a JSONP body with the new one."""
    for name in JSONP_PARAMS:
        new, old = incoming.named("query", name), recorded.named("query", name)
        if new and old and new[0] != old[0] and _IDENT.fullmatch(new[0]):
            text = body.decode("utf-8", "replace")
            at = text.find(old[0])
            if at != -1 and not text[:at].strip(" \n\r\t;/*!"):
                return (text[:at] + new[0] + text[at + len(old[0]) :]).encode()
    return body
