"""Recorded responses made to fit the moment of replay: dates, cookie expiry, JSONP names."""

from __future__ import annotations

from datetime import UTC, datetime

from webdojo.cache.exchange import CapturedRequest
from webdojo.cache.freshen import freshen, fulfil_headers, rename_jsonp
from webdojo.cache.normalize import normalize

RECORDED = (
    ("Date", "Mon, 01 Jan 2024 00:00:00 GMT"),
    ("Expires", "Tue, 02 Jan 2024 00:00:00 GMT"),
    ("Set-Cookie", "sid=abc; Expires=Wed, 03 Jan 2024 00:00:00 GMT; Path=/"),
    ("Set-Cookie", "theme=dark; Max-Age=60"),
    ("Content-Encoding", "gzip"),
    ("Content-Length", "999"),
    ("Content-Type", "text/html"),
)


def test_dates_and_cookie_expiry_move_by_the_same_amount() -> None:
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    headers = dict(fulfil_headers(freshen(RECORDED, now)))
    assert headers["date"] == "Thu, 26 Nov 2026 12:00:00 GMT"
    assert headers["expires"] == "Fri, 27 Nov 2026 12:00:00 GMT"  # still one day ahead
    cookies = headers["set-cookie"].split("\n")
    assert cookies == ["sid=abc; Expires=Sat, 28 Nov 2026 12:00:00 GMT; Path=/",
                       "theme=dark; Max-Age=60"]  # fmt: skip
    # bodies are stored decoded: the browser must not decode or trust a stale length
    assert "content-encoding" not in headers and "content-length" not in headers


def test_a_response_without_a_date_keeps_its_other_dates() -> None:
    headers = dict(freshen((("Expires", "Tue, 02 Jan 2024 00:00:00 GMT"),)))
    assert headers["Expires"] == "Tue, 02 Jan 2024 00:00:00 GMT"


def test_jsonp_bodies_call_the_callback_asked_for_now() -> None:
    recorded = normalize(CapturedRequest("GET", "http://a.test/p?callback=cb_old&x=1"))
    incoming = normalize(CapturedRequest("GET", "http://a.test/p?callback=cb_new&x=1"))
    body = b'/**/ cb_old({"promo": "cb_old"});'
    assert rename_jsonp(body, incoming, recorded) == b'/**/ cb_new({"promo": "cb_old"});'
    hostile = normalize(CapturedRequest("GET", "http://a.test/p?callback=alert(1)"))
    assert rename_jsonp(body, hostile, recorded) == body  # only identifiers are written in
    assert rename_jsonp(b"var x = cb_old;", incoming, recorded) == b"var x = cb_old;"
