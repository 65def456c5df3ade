"""The archive (WARC + index) and tiered matching, without a browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webdojo.cache.archive import Archive, ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.matcher import Matcher
from webdojo.cache.normalize import normalize
from webdojo.cache.rules import Rule, RuleSet, dump_rules, load_rules
from webdojo.errors import ArchiveError, ConfigError

JSON = (("Content-Type", "application/json"),)


def ex(url: str, body: str, method: str = "GET", req_body: bytes = b"", headers=(), seq=0, visit=0):
    return Exchange(
        CapturedRequest(method, url, tuple(headers), req_body),
        CapturedResponse(200, (("Content-Type", "text/plain"),), body.encode(), "OK"),
        visit=visit,
        seq=seq,
        started=1_700_000_000.0 + seq,
    )


_OPEN: list[Archive] = []


@pytest.fixture(autouse=True)
def _close_archives():
    yield
    while _OPEN:
        _OPEN.pop().close()


def build(tmp_path: Path, exchanges: list[Exchange], rules: list[Rule] = ()) -> Archive:
    path = tmp_path / "arch"
    path.mkdir()
    if rules:
        dump_rules(rules, path / "rules.yaml")
    with ArchiveWriter(path, source="test") as writer:
        for e in exchanges:
            writer.add(e)
    archive = Archive.open(path)
    _OPEN.append(archive)
    return archive


def serve(archive: Archive, request: CapturedRequest, matcher: Matcher | None = None):
    m = (matcher or Matcher(archive.index, archive.rules)).match(request)
    body = archive.response(m.entry).body.decode() if m.entry else None
    return m.level, body


def test_round_trip_keeps_bodies_headers_and_dedupes(tmp_path: Path) -> None:
    same = "x" * 1000
    archive = build(
        tmp_path, [ex("http://a.test/1", same, seq=0), ex("http://a.test/2", same, seq=1)]
    )
    entries = list(archive.index.entries())
    assert [e.url for e in entries] == ["http://a.test/1", "http://a.test/2"]
    assert entries[0].body_offset == entries[1].body_offset  # content-addressed: a revisit
    assert archive.response(entries[1]).body == same.encode()
    assert archive.request(entries[1]).url == "http://a.test/2"
    assert archive.meta.exchanges == 2 and archive.meta.epoch_ms == 1_700_000_000_000


def test_levels_exact_rules_learned_and_fuzzy(tmp_path: Path) -> None:
    learned = Rule(host="a.test", path="/api", where="json", name="nonce", source="learned")
    archive = build(
        tmp_path,
        [
            ex("http://a.test/page?id=1&utm_source=x", "one", seq=0),
            ex("http://a.test/page?id=2&utm_source=x", "two", seq=1),
            ex("http://a.test/api", "posted", "POST", b'{"b": 1, "nonce": "q1", "a": 2}', JSON, 2),
            ex("http://a.test/list?page=1&v=3", "list1", seq=3),
        ],
        [learned],
    )
    assert serve(archive, CapturedRequest("GET", "http://a.test/page?id=2&utm_source=x")) == (
        "L0",
        "two",
    )
    assert serve(archive, CapturedRequest("GET", "http://a.test/page?utm_source=y&id=1")) == (
        "L1",
        "one",
    )
    post = CapturedRequest("POST", "http://a.test/api", JSON, b'{"a": 2, "nonce": "zz", "b": 1}')
    assert serve(archive, post) == ("L2", "posted")
    # a version parameter that no recorded request varies is not essential: L3
    assert serve(archive, CapturedRequest("GET", "http://a.test/list?page=1&v=4")) == (
        "L3",
        "list1",
    )
    # trap parameters stay distinct at every level
    miss = Matcher(archive.index, archive.rules).match(
        CapturedRequest("GET", "http://a.test/page?id=3")
    )
    assert miss.level is None and miss.candidates[0].entry.url.startswith("http://a.test/page?id=")
    assert ("query", "id", "3", "1") in miss.candidates[0].differences or (
        "query", "id", "3", "2") in miss.candidates[0].differences  # fmt: skip
    assert serve(archive, CapturedRequest("GET", "http://a.test/list?page=2&v=3"))[0] is None


def test_repeated_requests_replay_in_order_then_reuse_the_last(tmp_path: Path) -> None:
    archive = build(tmp_path, [ex("http://a.test/counter", str(i), seq=i) for i in range(3)])
    matcher = Matcher(archive.index, archive.rules)
    got = [
        serve(archive, CapturedRequest("GET", "http://a.test/counter"), matcher)[1]
        for _ in range(5)
    ]
    assert got == ["0", "1", "2", "2", "2"]


def test_beacons_are_synthesized_at_level_4_and_other_misses_are_not(tmp_path: Path) -> None:
    archive = build(tmp_path, [ex("http://a.test/", "home")])
    matcher = Matcher(archive.index, archive.rules)
    beacon = matcher.match(CapturedRequest("POST", "http://stats.a.test/beacon", (), b"x"))
    assert beacon.level == "L4" and beacon.synthesized is not None
    assert beacon.synthesized.status == 204
    assert matcher.match(CapturedRequest("GET", "http://a.test/other")).level is None


def test_normalizer_reads_form_json_multipart_headers_and_cookies() -> None:
    boundary = "XyZ"
    multipart = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n'
        f"Content-Type: text/plain\r\n\r\nDATA\r\n--{boundary}--\r\n"
    ).encode()
    req = CapturedRequest(
        "POST",
        "http://A.test:80/up?x=1",
        (("Content-Type", f"multipart/form-data; boundary={boundary}"), ("Cookie", "s=1; t=2"),
         ("X-Request-Id", "r1"), ("User-Agent", "any")),
        multipart,
    )  # fmt: skip
    normal = normalize(req)
    assert str(normal.endpoint) == "POST a.test/up"
    assert normal.named("multipart", "title") == ["hello"]
    assert normal.named("multipart", "f")[0].startswith("file:")
    assert normal.named("cookie", "t") == ["2"] and normal.named("header", "x-request-id") == ["r1"]
    assert normal.named("header", "user-agent") == []
    nested = normalize(
        CapturedRequest("POST", "http://a.test/j", JSON, b'{"a": {"b": [1, {"c": "d"}]}}')
    )
    assert normal.named("query", "x") == ["1"] and nested.named("json", "a.b.1.c") == ['"d"']


def test_rule_files_round_trip_and_bad_files_say_where(tmp_path: Path) -> None:
    rule = Rule(host="a.test", path="/api/", where="header", name="x-csrf-token", source="learned",
                evidence=("visit 0 vs 1",))  # fmt: skip
    path = tmp_path / "rules.yaml"
    dump_rules([rule], path)
    assert load_rules(path) == [rule]
    path.write_text("webdojo_rules: 1\ndomains:\n  a.test:\n    /:\n      - {wher: query}\n")
    with pytest.raises(ConfigError, match=r"a\.test / rule 1"):
        load_rules(path)


def test_default_rules_mask_nonces_but_not_ids() -> None:
    rules = RuleSet()
    normal = normalize(
        CapturedRequest(
            "GET", "http://a.test/p?_=1700000000123&id=deadbeefdeadbeefdead&n=deadbeefdeadbeefdead"
        )
    )
    masked = {f.name: f.value for f in rules.mask(normal.endpoint, normal.fields, 1)}
    assert masked == {"_": "*", "id": "deadbeefdeadbeefdead", "n": "*"}


def test_broken_archives_get_precise_errors(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="not an archive"):
        Archive.open(tmp_path)
    (tmp_path / "archive.json").write_text(json.dumps({"webdojo_archive": 99}))
    with pytest.raises(ArchiveError, match="format 99"):
        Archive.open(tmp_path)


def test_index_rebuilds_from_the_warc_and_rekeys_for_new_rules(tmp_path: Path) -> None:
    archive = build(tmp_path, [ex("http://a.test/p?sid=abc", "p")])
    path = archive.path
    archive.close()
    (path / "index.sqlite").unlink()
    rules = tmp_path / "user.yaml"
    dump_rules([Rule(host="a.test", where="query", name="sid")], rules)
    with Archive.open(path, (rules,)) as again:
        assert serve(again, CapturedRequest("GET", "http://a.test/p?sid=zzz")) == ("L1", "p")
