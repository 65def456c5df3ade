"""Learning volatile fields from visits and misses (``webdojo.cache.learn``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from webdojo.cache.archive import Archive, ArchiveWriter, write_last_replay
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.learn import (
    LearnConfig,
    common_domain,
    common_path,
    learn,
    learn_archive,
    learned_fields,
    precision_recall,
)
from webdojo.cache.matcher import Matcher
from webdojo.cache.rules import RuleSet

API = "http://api.shop.test"


def ex(visit: int, seq: int, url: str, body: str, method: str = "GET", req=b"", headers=()):
    return Exchange(
        CapturedRequest(method, url, tuple(headers), req),
        CapturedResponse(200, (("Content-Type", "application/json"),), body.encode(), "OK"),
        visit=visit,
        seq=seq,
        started=1_700_000_000.0 + seq,
    )


def visit(v: int, swap: bool = False) -> list[Exchange]:
    """One load: a page list (a trap `page`, the same values in every visit), a cart POST with
    a time, a request id and the session cookie that all change from visit to visit.
    Values are made to dodge the default rules (short, no digits), so only learning helps."""
    cookie = ("Cookie", f"session={'abcd' if v == 0 else 'wxyz'}")
    rid = ("X-Request-Id", f"r{v}q")
    pages = [2, 1] if swap else [1, 2]
    out = [
        ex(v, i, f"{API}/list?page={p}", f"list {p}", headers=(cookie,))
        for i, p in enumerate(pages)
    ]
    body = json.dumps({"item": 7, "ts": f"t{v}"}).encode()
    out.append(ex(v, 2, f"{API}/cart", "added 7", "POST", body,
                  (("Content-Type", "application/json"), cookie, rid)))  # fmt: skip
    return out


def build(path: Path, exchanges: list[Exchange]) -> Path:
    with ArchiveWriter(path, source="test") as writer:
        for e in exchanges:
            writer.add(e)
    return path


def names(rules) -> set[tuple[str, str]]:
    return {(r.where, r.name) for r in rules}


def test_visits_reveal_the_volatile_three_and_not_the_trap(tmp_path: Path) -> None:
    # visit 1 asks for its pages in the other order: alignment still pairs page with page
    path = build(tmp_path / "a", visit(0) + visit(1, swap=True))
    report = learn_archive(path)
    assert names(report.rules) == {
        ("json", "ts"),
        ("header", "x-request-id"),
        ("cookie", "session"),
    }
    assert report.misses_before == 6 and report.misses_after == 0 and report.rounds == 1
    cookie = next(r for r in report.rules if r.where == "cookie")
    assert (cookie.host, cookie.path) == ("api.shop.test", "/")  # /list and /cart: common "/"
    assert all(r.source == "learned" and r.evidence for r in report.rules)
    assert "visit" in cookie.evidence[0] and "abcd" in " ".join(cookie.evidence)
    # saved: a new session's cart POST now matches at L2 and pages stay apart
    with Archive.open(path) as archive:
        assert len(archive.rules.learned()) == 3
        matcher = Matcher(archive.index, archive.rules, max_level=2)
        cart = CapturedRequest("POST", f"{API}/cart", (("Content-Type", "application/json"),
                               ("Cookie", "session=new"), ("X-Request-Id", "zz")),
                               b'{"ts": "later", "item": 7}')  # fmt: skip
        assert matcher.match(cart).level == "L2"
        page2 = CapturedRequest("GET", f"{API}/list?page=2", (("Cookie", "session=new"),))
        hit = matcher.match(page2)
        assert hit.entry is not None and archive.response(hit.entry).body == b"list 2"


def test_a_rule_that_would_merge_two_responses_is_rejected(tmp_path: Path) -> None:
    # `page` is paired wrongly (visit 1 recorded page=2 only), so it looks volatile; but
    # page=1 and page=2 of visit 0 got different answers: masking page would merge them.
    exchanges = [
        ex(0, 0, f"{API}/list?page=1&sid=a", "list 1"),
        ex(0, 1, f"{API}/list?page=2&sid=a", "list 2"),
        ex(1, 0, f"{API}/list?page=2&sid=b", "list 2"),
        ex(1, 1, f"{API}/list?page=3&sid=b", "list 3"),
    ]
    with Archive.open(build(tmp_path / "a", exchanges)) as archive:
        report = learn(list(archive.index.entries()), archive.rules)
    assert names(report.rules) == {("query", "sid")}
    why = {r.name: reason for r, reason in report.rejected}
    assert "page" in why and "one response for two" in why["page"]


def test_rounds_stop_when_nothing_improves(tmp_path: Path) -> None:
    # /only exists in visit 0 (no rule can help); /x differs in a field one side lacks
    exchanges = [
        ex(0, 0, f"{API}/only", "o"),
        ex(0, 1, f"{API}/x?a=1", "x"),
        ex(1, 0, f"{API}/x?a=1&extra=2", "x"),
    ]
    with Archive.open(build(tmp_path / "a", exchanges)) as archive:
        entries = list(archive.index.entries())
        report = learn(entries, archive.rules, config=LearnConfig(max_rounds=5))
        assert report.rules == [] and report.rounds == 0 and report.misses_after == 2
        assert learn(entries, RuleSet()).rounds == 0


def test_last_replay_misses_are_evidence(tmp_path: Path) -> None:
    path = build(tmp_path / "a", [ex(0, 0, f"{API}/feed?k=one&v=1", "feed")])
    write_last_replay(path, {"missed": [{"method": "GET", "url": f"{API}/feed?k=two&v=1",
        "nearest": [{"url": f"{API}/feed?k=one&v=1", "score": 0.5,
                     "differences": [["query", "k", "two", "one"]]}]}]})  # fmt: skip
    report = learn_archive(path, save=False)
    assert names(report.rules) == {("query", "k")} and not report.saved
    assert "last replay" in report.rules[0].evidence[0]
    with Archive.open(path) as archive:
        assert archive.rules.learned() == ()


def test_cli_json_last_line(tmp_path: Path) -> None:
    from webdojo.cli.cache import cache_app

    path = build(tmp_path / "a", visit(0) + visit(1))
    result = CliRunner().invoke(cache_app, ["learn", str(path), "--json", "--dry-run"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output.strip().splitlines()[-1])
    assert data["rounds"] == 1 and len(data["rules"]) == 3
    assert set(data["rules"][0]) == {"host", "path", "where", "name"}
    missing = CliRunner().invoke(cache_app, ["learn", str(tmp_path / "none")])
    assert missing.exit_code == 2


def test_prefixes_and_scores() -> None:
    assert common_path(["/api/items", "/api/item"]) == "/api/"
    assert common_path(["/a", "/a/b"]) == "/a"
    assert common_path(["/x"]) == "/x" and common_path(["/a", "/b"]) == "/"
    assert common_domain(["api.v.test", "www.v.test"]) == "v.test"
    assert common_domain(["a.one", "b.two"]) == "*"
    truth = [
        {"host": "api.v.test", "path": "/api/items", "where": "query", "name": "_"},
        {"host": "*", "path": "*", "where": "cookie", "name": "session"},
    ]
    learned = {("api.v.test", "/api/", "query", "_"), ("v.test", "/", "query", "page")}
    assert precision_recall(learned, truth) == (0.5, 0.5)
    assert precision_recall({("v.test", "/", "cookie", "session")}, truth) == (1.0, 0.5)


@pytest.mark.browser
async def test_learns_the_volatile_site(tmp_path: Path) -> None:
    from webdojo.bench.volatile_site import VolatileSite, manifest, trap_params
    from webdojo.record_replay import DriveConfig, record_url

    started = time.perf_counter()
    with VolatileSite() as site:
        config = DriveConfig(resolve=tuple(f"{h}=127.0.0.1:{site.port}" for h in site.hosts))
        await record_url(site.start_url, tmp_path / "v", 2, config)
    report = learn_archive(tmp_path / "v")
    fields = learned_fields(report.rules)
    precision, recall = precision_recall(fields, manifest())
    traps = precision_recall(fields, trap_params())[1]
    print(f"precision {precision:.2f} recall {recall:.2f} rounds {report.rounds} "
          f"misses {report.misses_before}->{report.misses_after} "
          f"in {time.perf_counter() - started:.1f}s")  # fmt: skip
    assert precision >= 0.95 and recall >= 0.90 and report.rounds <= 3
    assert traps == 0.0  # no trap parameter learned
    assert report.replay_misses_after == 0


def test_a_refused_general_rule_falls_back_to_one_per_path_next_round(tmp_path: Path) -> None:
    # `v` changes across visits on /a/x and /a/y, but on /a/z it selects the answer
    exchanges = [
        ex(0, 0, f"{API}/a/x?v=p", "x"), ex(1, 0, f"{API}/a/x?v=q", "x"),
        ex(0, 1, f"{API}/a/y?v=p", "y"), ex(1, 1, f"{API}/a/y?v=q", "y"),
        ex(0, 2, f"{API}/a/z?v=one", "z1"), ex(0, 3, f"{API}/a/z?v=two", "z2"),
        ex(1, 2, f"{API}/a/z?v=one", "z1"), ex(1, 3, f"{API}/a/z?v=two", "z2"),
    ]  # fmt: skip
    with Archive.open(build(tmp_path / "a", exchanges)) as archive:
        report = learn(list(archive.index.entries()), archive.rules)
    assert report.rounds == 2 and report.misses_after == 0
    assert sorted(r.path for r in report.rules) == ["/a/x", "/a/y"]
    assert [r.path for r, _ in report.rejected] == ["/a/"]
