"""Level 3 through the index: essential parameters computed when the index is keyed, one l3
key per entry, and old index files upgraded on open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from webdojo.bench.cache_lookup_bench import PROBE_KINDS, run_lookup_bench
from webdojo.cache.archive import Archive, ArchiveWriter
from webdojo.cache.essential import l3_key
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.index import SCHEMA
from webdojo.cache.matcher import Matcher
from webdojo.cache.normalize import Endpoint, normalize
from webdojo.cache.rules import Rule, dump_rules

HOST = "http://a.test"


def ex(url: str, body: str, seq: int, visit: int = 0) -> Exchange:
    return Exchange(
        CapturedRequest("GET", f"{HOST}{url}"),
        CapturedResponse(200, (("Content-Type", "text/plain"),), body.encode(), "OK"),
        visit=visit,
        seq=seq,
        started=1_700_000_000.0 + seq,
    )


def write(path: Path, exchanges: list[Exchange]) -> Path:
    with ArchiveWriter(path, source="test") as writer:
        for e in exchanges:
            writer.add(e)
    return path


def served(archive: Archive, url: str, matcher: Matcher | None = None) -> tuple[str | None, str]:
    match = (matcher or Matcher(archive.index, archive.rules)).match(
        CapturedRequest("GET", f"{HOST}{url}")
    )
    body = archive.response(match.entry).body.decode() if match.entry else ""
    return match.level, body


def endpoint(path: str) -> Endpoint:
    return Endpoint("GET", "a.test", path)


def test_an_l3_probe_finds_the_recorded_exchange_by_its_l3_key(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/list?page=1&v=3", "list1", 0),
                                  ex("/list?page=2&v=3", "list2", 1)])  # fmt: skip
    with Archive.open(path) as archive:
        essential = archive.index.essential(endpoint("/list"))
        assert essential == {("query", "page")}  # id-like; v is the same in every request
        probe = normalize(CapturedRequest("GET", f"{HOST}/list?page=2&v=4"))
        key = l3_key(probe.endpoint, archive.rules.mask(probe.endpoint, probe.fields, 2),
                     essential)  # fmt: skip
        assert [e.url for e in archive.index.l3_variants(key, 10)] == [f"{HOST}/list?page=2&v=3"]
        assert served(archive, "/list?page=2&v=4") == ("L3", "list2")
        assert archive.index.essential(endpoint("/never")) is None


def test_a_parameter_whose_values_differ_is_essential(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [
        ex("/feed?k=one&v=1", "one", 0), ex("/feed?k=two&v=1", "two", 1),
        ex("/opt?a=1&v=1", "with", 2), ex("/opt?v=1", "without", 3),  # absence is a value
        ex("/t?at=1700000000&v=1", "t0", 4), ex("/t?at=1700000099&v=1", "t1", 5),
    ])  # fmt: skip
    with Archive.open(path) as archive:
        assert archive.index.essential(endpoint("/feed")) == {("query", "k")}
        assert archive.index.essential(endpoint("/opt")) == {("query", "a")}
        # a timestamp the default rules mask is not essential, however its values differ
        assert archive.index.essential(endpoint("/t")) == frozenset()
        assert served(archive, "/feed?k=two&v=2") == ("L3", "two")
        assert served(archive, "/feed?k=three&v=1")[0] is None
        assert served(archive, "/opt?v=2") == ("L3", "without")


def test_an_id_like_parameter_never_recorded_gives_no_l3_match(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/search?q=hats&v=1", "hats", 0)])
    with Archive.open(path) as archive:
        assert served(archive, "/search?q=hats&v=2&foo=1") == ("L3", "hats")
        miss = Matcher(archive.index, archive.rules).match(
            CapturedRequest("GET", f"{HOST}/search?q=hats&v=1&item_id=5")
        )
        assert miss.level is None  # it asks for an item no recorded request names
        assert miss.candidates[0].entry.url == f"{HOST}/search?q=hats&v=1"
        assert ("query", "item_id", "5", "(absent)") in miss.candidates[0].differences


def test_essential_sets_span_every_recorded_request_of_the_endpoint(tmp_path: Path) -> None:
    # The former L3 scanned only the first 50 recorded requests (l3_cap): seeing v=1 in all of
    # them it took v for noise and served a v=1 answer to a request for v=2. The essential
    # sets now come from all recorded requests, so v selects, and v=2 gets its own answer.
    many = [ex("/feed?v=1&r=home", f"old{i}", i) for i in range(60)]
    path = write(tmp_path / "a", [*many, ex("/feed?v=2&r=home", "new", 60)])
    with Archive.open(path) as archive:
        assert archive.index.essential(endpoint("/feed")) == {("query", "v")}
        assert served(archive, "/feed?v=2&r=elsewhere") == ("L3", "new")
        assert served(archive, "/feed?v=1&r=elsewhere") == ("L3", "old0")


def test_l3_serves_copies_of_the_best_in_recorded_order(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/counter?v=1", str(i), i) for i in range(3)])
    with Archive.open(path) as archive:
        probe = normalize(CapturedRequest("GET", f"{HOST}/counter?v=1&z=9"))
        key = l3_key(probe.endpoint, probe.fields, frozenset())
        assert len(archive.index.l3_variants(key, 10)) == 1  # copies are one candidate
        matcher = Matcher(archive.index, archive.rules)
        got = [served(archive, "/counter?v=1&z=9", matcher) for _ in range(4)]
        assert got == [("L3", "0"), ("L3", "1"), ("L3", "2"), ("L3", "2")]


def test_rekey_recomputes_the_essential_sets(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/feed?k=one&s=a&v=1", "one", 0),
                                  ex("/feed?k=two&s=b&v=1", "two", 1)])  # fmt: skip
    with Archive.open(path) as archive:
        assert archive.index.essential(endpoint("/feed")) == {("query", "k"), ("query", "s")}
        assert served(archive, "/feed?k=one&s=zzz&v=2")[0] is None  # s selects, zzz unknown
    rules = tmp_path / "user.yaml"
    dump_rules([Rule(host="a.test", where="query", name="s")], rules)
    with Archive.open(path, (rules,)) as archive:  # other rules: the index is rekeyed
        assert archive.index.essential(endpoint("/feed")) == {("query", "k")}
        assert served(archive, "/feed?k=one&s=zzz&v=2") == ("L3", "one")


def test_nearest_scores_repeated_fields_as_multisets(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/dup?a=1&a=1&c=1", "dup", 0), ex("/dup?a=1&c=1", "one", 1)])
    with Archive.open(path) as archive:
        matcher = Matcher(archive.index, archive.rules)
        near = matcher.nearest(normalize(CapturedRequest("GET", f"{HOST}/dup?a=1&a=1&c=2")))
        # a=1 twice in common of 4 fields in all; with the single a=1: 1 of 4
        assert [(c.entry.url, c.score) for c in near] == [
            (f"{HOST}/dup?a=1&a=1&c=1", 0.5), (f"{HOST}/dup?a=1&c=1", 0.25)]  # fmt: skip


def _make_old(index_file: Path) -> None:
    """Strip an index file down to the layout webdojo wrote before level 3 was indexed."""
    db = sqlite3.connect(index_file)
    with db:
        db.execute("DROP INDEX by_l3")
        db.execute("DROP INDEX by_host")
        for column in ("l2_first", "l3", "masked"):
            db.execute(f"ALTER TABLE entries DROP COLUMN {column}")
        db.execute("DROP TABLE endpoints")
        db.execute("DELETE FROM meta WHERE key = 'schema'")
    db.close()


def test_an_old_index_is_upgraded_on_open_and_replays(tmp_path: Path) -> None:
    path = write(tmp_path / "a", [ex("/list?page=1&v=3", "list1", 0),
                                  ex("/list?page=2&v=3", "list2", 1)])  # fmt: skip
    _make_old(path / "index.sqlite")
    with Archive.open(path) as archive:  # the same rules built it: only the upgrade rekeys
        assert archive.index.meta("schema") == SCHEMA
        assert archive.index.essential(endpoint("/list")) == {("query", "page")}
        assert served(archive, "/list?page=2&v=9") == ("L3", "list2")
        miss = Matcher(archive.index, archive.rules).match(
            CapturedRequest("GET", f"{HOST}/other?page=1")
        )
        assert miss.level is None and miss.candidates[0].score > 0  # same host, other path
    with sqlite3.connect(path / "index.sqlite") as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
        indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"masked", "l3", "l2_first"} <= columns and {"by_l3", "by_host"} <= indexes


def test_lookup_bench_resolves_every_probe_and_reports_l3_and_miss(tmp_path: Path) -> None:
    data = run_lookup_bench(tmp_path / "lookup", 300, probes=50).to_json()
    assert data["lookup_wrong_level"] == 0 and set(data["lookup_by_level"]) == set(PROBE_KINDS)
    assert data["lookup_p99_ms_l3"] == data["lookup_by_level"]["L3"]["p99_ms"]
    assert data["miss_p99_ms"] == data["lookup_by_level"]["miss"]["p99_ms"]
