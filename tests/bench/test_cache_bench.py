"""The cache benchmark end to end on small numbers, as users run it (no timing asserts): it
replays the volatile site without a miss, a false match or a request reaching the canary."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.bench.cache_bench import false_matches, volatile_score
from webdojo.bench.cache_lookup_bench import PROBE_KINDS
from webdojo.bench.volatile_manifest import MANIFEST
from webdojo.cache.archive import Archive, ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.index import Entry
from webdojo.cache.matcher import Match
from webdojo.cache.normalize import normalize
from webdojo.cache.rules import Rule

KEYS = (
    "served_rate", "by_level", "misses", "false_matches", "volatile_precision",
    "volatile_recall", "learn_rounds", "identical_hashes_on", "identical_hashes_off", "replays",
    "aborted_outbound", "canary_hits", "lookup_p50_ms", "lookup_p99_ms", "load_ms_live",
    "load_ms_replay", "load_ms_route", "replay_over_live", "route_over_live",
)  # fmt: skip


@pytest.mark.browser
@pytest.mark.slow
def test_bench_cache_cli_quick() -> None:
    # two replays a mode are the fewest that can agree; both given numbers override --quick's
    argv = ("bench", "cache", "--quick", "--replays", "2", "--entries", "500", "--loads", "2")
    argv += ("--json",)
    data = last_json(webdojo(*argv, timeout=180))
    assert set(KEYS) <= set(data)
    assert data["replays"] == 2 and data["lookup_entries"] == 500
    assert data["served_rate"] >= 0.99 and data["misses"] == 0
    assert data["false_matches"] == 0 and data["trap_checked"] > 0
    assert data["page_mismatches"] == 0
    assert data["canary_hits"] == 0 and data["canary_armed"]
    assert data["identical_hashes_on"] == 2
    assert data["lookup_wrong_level"] == 0
    assert set(data["lookup_by_level"]) == set(PROBE_KINDS)
    assert 0 < data["volatile_precision"] <= 1 and 0 < data["volatile_recall"] <= 1
    live, replay, route = data["load_ms_live"], data["load_ms_replay"], data["load_ms_route"]
    assert min(live, replay, route) > 0  # each way timed (the ratios are the docs' business)
    assert data["replay_over_live"] == pytest.approx(replay / live, abs=0.002)
    assert data["route_over_live"] == pytest.approx(route / live, abs=0.002)


def _served(incoming: str, recorded: str) -> Match:
    """A match that served the request recorded at ``recorded`` for one to ``incoming``."""
    old = normalize(CapturedRequest("GET", recorded))
    entry = Entry(0, 0, 0, 0.0, old.endpoint, recorded, old.fields, 200, "", 0, "", 0, 0, 0)
    return Match("L3", entry, request=normalize(CapturedRequest("GET", incoming)))


def test_false_matches_compare_trap_params_only() -> None:
    api = "http://api.volatile.test/api/items"
    same = _served(f"{api}?page=1&q=hats&_=1700000000001", f"{api}?page=1&q=hats&_=1700000000000")
    other = _served(f"{api}?page=2&q=hats&_=1700000000001", f"{api}?page=1&q=hats&_=1700000000000")
    plain = _served("http://api.volatile.test/api/counter", "http://api.volatile.test/api/counter")
    assert false_matches([same, plain]) == (1, 0)
    assert false_matches([same, other, plain]) == (2, 1)


def test_volatile_score_against_the_manifest(tmp_path: Path) -> None:
    beacon = CapturedRequest(
        "POST", "http://stats.volatile.test/beacon",
        (("Content-Type", "application/x-www-form-urlencoded"),),
        b"event=view&page=home&t=1700000000000&sid=k3j4h5g6",
    )  # fmt: skip
    items = CapturedRequest(
        "GET", "http://api.volatile.test/api/items?page=1&q=hats&_=1700000000000"
    )
    with ArchiveWriter(tmp_path, source="test") as writer:
        for seq, request in enumerate((beacon, items)):
            writer.add(Exchange(request, CapturedResponse(204), seq=seq))
    learned = Rule(host="stats.volatile.test", path="/beacon", where="form", name="sid",
                   source="learned")  # fmt: skip
    with Archive.open(tmp_path) as archive:
        defaults = volatile_score(archive.index, archive.rules)
        with_learned = volatile_score(archive.index, archive.rules.with_rules([learned]))
    # defaults mask the two timestamps (beacon t, items _), not the beacon's random sid
    assert (defaults.covered, defaults.precision, defaults.by_source) == (2, 1.0, {"default": 2})
    assert "stats.volatile.test/beacon form:sid" in defaults.missed
    assert with_learned.covered == 3 and with_learned.by_source == {"default": 2, "learned": 1}
    assert with_learned.recall == pytest.approx(3 / len(MANIFEST))
