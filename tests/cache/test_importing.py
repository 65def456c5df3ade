"""The importers on real captures (../shared/data/har, ../shared/data/warc) and on broken input
built here: every real file imports, or fails with a precise ArchiveError; broken records are
skipped with a reason and the rest of the file is kept."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from shared_data import shared_file
from webdojo.cache.exchange import Exchange, header
from webdojo.cache.importing import ImportResult, import_files
from webdojo.errors import ArchiveError

# file (under har/ or warc/) -> (exchanges imported, records skipped)
EXPECTED = {
    "har2warc/example.har": (13, 0),
    "har2warc/http2.github.io.har": (21, 0),
    "haralyzer/cnn-chrome.har": (292, 0),
    "haralyzer/cnn.har": (144, 1),  # one entry without a response (status 0)
    "haralyzer/humanssuck.net.har": (4, 0),
    "haralyzer/humanssuck.net_duplicate_url.har": (5, 0),
    "haralyzer/missing_page.har": (0, 1),  # method and url misplaced inside postData
    "haralyzer/missing_pageref.har": (0, 2),
    "haralyzer/multi_test_1.har": (4, 0),
    "haralyzer/no_title.har": (4, 0),
    "haralyzer/single_entry.har": (1, 0),  # a bare entry, no log wrapper: read, with a note
    "mitmproxy/flows/corrupted_gzip_body.har": (0, 1),
    "mitmproxy/flows/diff_data.har": (5, 0),
    "mitmproxy/flows/error_log.har": (1, 1),
    "mitmproxy/flows/event_stream.har": (2, 0),
    "mitmproxy/flows/incomplete_log.har": (0, 4),
    "mitmproxy/flows/successful_log.har": (2, 0),
    "mitmproxy/flows/websocket.har": (0, 3),
    "mitmproxy/har_files/charles.har": (1, 0),
    "mitmproxy/har_files/chrome.har": (2, 1),
    "mitmproxy/har_files/firefox.har": (14, 0),
    "mitmproxy/har_files/head-content-length.har": (1, 0),
    "mitmproxy/har_files/insomnia.har": (1, 0),
    "mitmproxy/har_files/postdata.har": (1, 0),
    "mitmproxy/har_files/safari.har": (19, 0),
    "mitmproxy/har_files/with-bom.har": (1, 0),
    "iana/iana.warc.gz": (171, 0),
    "warcio/bad.arc": (0, 3),
    "warcio/example-bad-non-chunked.warc.gz": (2, 0),  # one gzip stream: read as such
    "warcio/example-bad.warc.gz.bad": (3, 0),
    "warcio/example-digest.warc": (0, 4),  # requests whose response is not in the file
    "warcio/example-iana.org-chunked.warc": (1, 0),
    "warcio/example-resource.warc.gz": (1, 0),
    "warcio/example-space-in-target-uri.warc.gz": (0, 0),  # a file: resource only
    "warcio/example-space-in-url.arc": (1, 0),
    "warcio/example-trunc.warc": (0, 1),
    "warcio/example-wget-bad-target-uri.warc.gz": (1, 0),
    "warcio/example-wrong-chunks.warc.gz": (1, 0),  # gzip cut mid-record: read as one stream
    "warcio/example.arc": (1, 0),
    "warcio/example.arc.gz": (1, 0),
    "warcio/example.warc": (2, 0),
    "warcio/example.warc.gz": (2, 0),
    "warcio/post-test.warc.gz": (3, 0),
}


def _real(rel: str) -> Path:
    return shared_file(f"{'har' if rel.endswith('.har') else 'warc'}/{rel}")


def _one(path: Path) -> ImportResult:
    return import_files([path])


def _by_url(result: ImportResult, url: str) -> list[Exchange]:
    return [x for x in result.exchanges if x.request.url == url]


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_real_file_counts(rel: str) -> None:
    result = _one(_real(rel))
    assert (len(result.exchanges), len(result.skipped)) == EXPECTED[rel]
    assert [x.seq for x in result.exchanges] == list(range(len(result.exchanges)))
    for x in result.exchanges:
        assert x.request.url.startswith(("http://", "https://")) and "#" not in x.request.url
        assert header(x.response.headers, "content-encoding") is None
        assert header(x.response.headers, "transfer-encoding") is None
        assert not any(k.startswith(":") for k, _ in x.request.headers + x.response.headers)
    for s in result.skipped:
        assert s.file == str(_real(rel)) and s.where and s.reason


def test_every_real_har_is_counted_here() -> None:
    har = shared_file("har")
    found = {str(p.relative_to(har)) for p in har.rglob("*.har")}
    missing = found - set(EXPECTED) - {f"haralyzer/multi_test_{i}.har" for i in (2, 3, 4)}
    assert not missing


def test_mitmproxy_flow_dumps_are_refused_precisely() -> None:
    path = _real("mitmproxy/har_files/chrome.har").with_suffix(".json")
    with pytest.raises(
        ArchiveError, match=r"chrome\.json: JSON but not a HAR: top level is a list"
    ):
        _one(path)


def test_har_bodies_match_mitmproxy_own_import() -> None:
    # mitmproxy's HAR import of the same files, dumped next to them with a sha256 per body
    for name in ("charles", "firefox", "safari", "insomnia", "postdata", "with-bom"):
        har = _real(f"mitmproxy/har_files/{name}.har")
        flows = json.loads(har.with_suffix(".json").read_text())
        theirs = [(f["request"]["contentHash"], f["response"]["contentHash"]) for f in flows]
        ours = [
            (
                hashlib.sha256(x.request.body).hexdigest(),
                hashlib.sha256(x.response.body).hexdigest(),
            )
            for x in _one(har).exchanges
        ]
        assert sorted(ours) == sorted(theirs), name


def test_har_quirks_on_real_files() -> None:
    bom = _one(_real("mitmproxy/har_files/with-bom.har")).exchanges[0]
    assert bom.request.method == "POST" and bom.request.body
    head = _one(_real("mitmproxy/har_files/head-content-length.har")).exchanges[0]
    assert head.request.method == "HEAD" and head.response.body == b""
    assert int(header(head.response.headers, "content-length") or 0) > 0  # kept for HEAD
    chrome = _one(_real("mitmproxy/har_files/chrome.har"))
    assert "net::ERR_INTERNET_DISCONNECTED" in chrome.skipped[0].reason
    single = _one(_real("haralyzer/single_entry.har"))
    assert "no 'log' wrapper" in single.notes[0]
    sockets = _one(_real("mitmproxy/flows/websocket.har"))
    assert all("websocket" in s.reason for s in sockets.skipped)


def test_browser_har_drops_content_encoding_and_fixes_length() -> None:
    result = _one(_real("haralyzer/cnn.har"))
    texts = [x for x in result.exchanges if x.response.body.startswith(b"<!DOCTYPE")]
    assert texts
    for x in texts:
        length = header(x.response.headers, "content-length")
        assert length is None or int(length) == len(x.response.body)
    times = [x.started for x in result.exchanges]
    assert times == sorted(times) and times[0] > 1e9


def test_corrupt_gzip_entry_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    real = _real("mitmproxy/flows/corrupted_gzip_body.har")
    doc = json.loads(real.read_text())
    (bad,) = _one(real).skipped
    assert bad.where == "entry 0" and "gzip body does not decode" in bad.reason
    good = json.loads(json.dumps(doc["log"]["entries"][0]))
    good["response"]["content"]["text"] = base64.b64encode(gzip.compress(b"hello")).decode()
    doc["log"]["entries"] = [doc["log"]["entries"][0], good]
    path = tmp_path / "mixed.har"
    path.write_text(json.dumps(doc))
    result = _one(path)
    assert [s.where for s in result.skipped] == ["entry 0"]
    (x,) = result.exchanges
    assert x.response.body == b"hello" and header(x.response.headers, "content-length") == "5"
    assert any("still gzip" in n for n in x.notes)


def _entry(**response: Any) -> dict[str, Any]:
    return {
        "startedDateTime": "2024-01-02T03:04:05.5Z",
        "request": {
            "method": "get",
            "url": "https://example.org/a?b=1#frag",
            "headers": [{"name": ":authority", "value": "example.org"}],
            "cookies": [{"name": "sid", "value": "42"}],
        },
        "response": {"status": 200, "headers": [], "content": {}, **response},
    }


def _har(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    path = tmp_path / "made.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": list(entries)}}))
    return path


def test_invalid_base64_entry_is_skipped(tmp_path: Path) -> None:
    broken = _entry(content={"text": "not*base64!", "encoding": "base64"})
    result = _one(_har(tmp_path, broken, _entry(content={"text": "ok"})))
    assert [(s.where, "not valid base64" in s.reason) for s in result.skipped] == [
        ("entry 0", True)
    ]
    (x,) = result.exchanges
    assert x.request.method == "GET" and x.request.url == "https://example.org/a?b=1"
    assert x.request.headers == (("Cookie", "sid=42"),)
    assert x.response.body == b"ok" and x.started == 1704164645.5


def test_truncated_json_is_a_precise_error(tmp_path: Path) -> None:
    path = _har(tmp_path, _entry())
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(ArchiveError, match=r"made\.har: not valid JSON at line 1 .*truncated"):
        _one(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"hello world", "neither a HAR \\(JSON\\) nor a WARC/ARC file"),
        (b'{"log": {"pages": []}}', "HAR has no log.entries list"),
        (b'{"something": 1}', "JSON but not a HAR: no 'log.entries'; top-level keys: something"),
        (b"WARC/2.0\r\nWARC-Type: response\r\n", "'WARC/2.0' is a WARC version this reader"),
        (b"\x1f\x8b\x08\x00garbage", "gzip, but"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff", "gzip, but"),
    ],
)
def test_unreadable_files_name_themselves(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "input.bin"
    path.write_bytes(content)
    with pytest.raises(ArchiveError, match=message) as caught:
        _one(path)
    assert str(path) in caught.value.message and caught.value.details["file"] == str(path)


def test_gzipped_har_with_utf16_bom(tmp_path: Path) -> None:
    text = json.dumps({"log": {"entries": [_entry(content={"text": "é"})]}})
    path = tmp_path / "capture.bin"
    path.write_bytes(gzip.compress(text.encode("utf-16")))
    (x,) = _one(path).exchanges
    assert x.response.body == "é".encode()


def test_iana_crawl_replays_as_a_site() -> None:
    result = _one(_real("iana/iana.warc.gz"))
    pages = [
        x
        for x in result.exchanges
        if x.response.status == 200
        and (header(x.response.headers, "content-type") or "").startswith("text/html")
    ]
    assert len(pages) == 16 and all(b"<!doctype html>" in x.response.body[:20] for x in pages)
    (home,) = _by_url(result, "http://www.iana.org/")
    assert b"Internet Assigned Numbers Authority" in home.response.body
    assert header(home.response.headers, "content-length") == str(len(home.response.body))
    redirects = [x for x in result.exchanges if x.response.status == 302]
    assert len(redirects) == 4 and all(header(x.response.headers, "location") for x in redirects)
    revisits = [x for x in result.exchanges if any("revisit" in n for n in x.notes)]
    assert len(revisits) == 123 and all(x.response.body for x in revisits)
    css = _by_url(result, "http://www.iana.org/_css/2013.1/screen.css")
    assert len(css) == 15 and len({x.response.body for x in css}) == 1  # 1 response, 14 revisits
    assert all(x.request.headers for x in result.exchanges)  # every response had its request


def test_warc_bodies_match_warcio_decoding() -> None:
    from warcio.archiveiterator import ArchiveIterator

    for rel in ("iana/iana.warc.gz", "warcio/example.warc.gz", "warcio/post-test.warc.gz"):
        path = _real(rel)
        exchanges = _one(path).exchanges
        ours = [x.response.body for x in exchanges if not any("revisit" in n for n in x.notes)]
        with path.open("rb") as fh:
            theirs = [
                rec.content_stream().read()
                for rec in ArchiveIterator(fh)
                if rec.rec_type == "response"
            ]
        assert ours == theirs, rel


def test_broken_warcio_files_give_reasons() -> None:
    trunc = _one(_real("warcio/example-trunc.warc"))
    assert trunc.skipped[0].where == "offset 1197"
    assert "gzip body is truncated" in trunc.skipped[0].reason
    arc = _one(_real("warcio/bad.arc"))
    assert all("http://example.com/" in s.reason for s in arc.skipped)
    chunks = _one(_real("warcio/example-wrong-chunks.warc.gz"))
    assert b"Example Domain" in chunks.exchanges[0].response.body
    assert "gzip members do not line up" in chunks.notes[0]
    digest = _one(_real("warcio/example-digest.warc"))
    assert all(s.reason == "request for http://example.com/: no response" for s in digest.skipped)


def test_truncated_warc_keeps_records_before_the_cut(tmp_path: Path) -> None:
    data = _real("iana/iana.warc.gz").read_bytes()
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:60000])  # inside the gzip member of a record
    result = _one(path)
    assert 0 < len(result.exchanges) < 171
    last = result.skipped[-1]
    assert last.where.startswith("offset ") and "shorter than its declared length" in last.reason


def test_revisits_resolve_across_files_of_one_import(tmp_path: Path) -> None:
    path = _real("warcio/example.warc.gz")
    result = import_files([path, path])
    assert len(result.exchanges) == 4 and not result.skipped
    assert [x.seq for x in result.exchanges] == [0, 1, 2, 3]
    assert result.exchanges[1].response.body == result.exchanges[0].response.body


def test_corrupt_gzip_member_is_skipped_and_reading_resyncs(tmp_path: Path) -> None:
    data = bytearray(_real("iana/iana.warc.gz").read_bytes())
    data[42000:42040] = bytes(40)  # inside the member of the screen.css response (offset 41238)
    path = tmp_path / "corrupt.warc.gz"
    path.write_bytes(bytes(data))
    result = _one(path)
    first = result.skipped[0]
    assert first.where == "offset 41238" and "corrupt gzip data in this record" in first.reason
    revisits = [s for s in result.skipped if s.reason.startswith("revisit of")]
    assert len(revisits) == 15 and all("not found" in s.reason for s in revisits)
    assert len(result.exchanges) == 171 - 16  # the response and its revisits, nothing else
