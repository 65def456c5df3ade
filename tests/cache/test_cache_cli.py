"""``webdojo cache record|replay|lookup|stats|import`` as users run them, against the volatile
benchmark site on loopback under fake host names, with a canary site that must get no hit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from shared_data import shared_file
from webdojo.bench.volatile_site import VolatileSite

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def resolve(site: VolatileSite) -> list[str]:
    return [f"--resolve={host}=127.0.0.1:{site.port}" for host in site.hosts]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, VolatileSite]]:
    out = tmp_path_factory.mktemp("cache") / "volatile"
    with VolatileSite() as site:
        proc = webdojo("cache", "record", site.start_url, "--out", out, "--visits", "2", "--json",
                       *resolve(site))  # fmt: skip
        result = last_json(proc)
        assert result["visits"] == 2 and result["exchanges"] >= 20
        assert result["blocked_outbound"] == 0 and result["failed"] == 0
        yield out, site


@pytest.mark.parametrize("via", ["proxy", "route"])
def test_replay_serves_everything_offline_identically(
    recorded: tuple[Path, VolatileSite], via: str
) -> None:
    archive, site = recorded
    with VolatileSite() as canary:  # the replay browser resolves the fake hosts to the canary
        before = site.hits
        proc = webdojo("cache", "replay", archive, "--url", site.start_url, "--repeat", "3",
                       "--via", via, "--json", *resolve(canary))  # fmt: skip
        result = last_json(proc)
        assert canary.hits == 0 and site.hits == before  # nothing left the browser
    assert result["requests"] > 0 and result["served"] == result["requests"]
    assert result["misses"] == 0 and result["aborted_outbound"] == 0
    assert sum(result["by_level"].values()) == result["served"]
    assert len(result["screenshot_hashes"]) == 3 and len(set(result["screenshot_hashes"])) == 1
    stats = last_json(webdojo("cache", "stats", archive, "--json"))
    assert stats["last_replay"]["served"] == result["served"]
    log = stats["last_replay"]["log"]  # the level of every hit, request by request
    assert len(log) == result["requests"] and {lvl for _, _, lvl in log} <= set(result["by_level"])
    assert {h["host"] for h in stats["hosts"]} >= {"www.volatile.test", "api.volatile.test"}


def test_strict_replay_of_an_unrecorded_page_names_the_miss(
    recorded: tuple[Path, VolatileSite],
) -> None:
    archive, _ = recorded
    proc = webdojo(
        "cache", "replay", archive, "--url", "http://www.volatile.test/nowhere", "--strict"
    )
    assert proc.returncode == 1
    assert "no recorded response for GET http://www.volatile.test/nowhere" in proc.stderr
    assert "nearest: http://www.volatile.test/" in proc.stderr


def test_lookup_explains_matches_and_misses(recorded: tuple[Path, VolatileSite]) -> None:
    archive, _ = recorded
    hit = last_json(webdojo("cache", "lookup", archive,
                            "http://api.volatile.test/api/items?page=1&q=shoes&_=1", "--json"))  # fmt: skip
    # the page's request carried the session cookie, this one none: same params, so L3
    assert hit["level"] == "L3" and "page=1" in hit["match"] and "q=shoes" in hit["match"]
    miss = last_json(webdojo("cache", "lookup", archive,
                             "http://api.volatile.test/api/items?page=9&q=shoes&_=1", "--json"))  # fmt: skip
    assert miss["level"] is None
    assert ["query", "page", "9", "1"] in miss["nearest"][0]["differences"]


def test_bad_input_gets_precise_errors(tmp_path: Path) -> None:
    proc = webdojo("cache", "replay", tmp_path, "--url", "http://x.test/")
    assert proc.returncode == 2 and "is not an archive" in proc.stderr
    proc = webdojo("cache", "record", "http://x.test/", "--out", tmp_path / "a",
                   "--resolve", "x.test=10.0.0.1:80")  # fmt: skip
    assert proc.returncode == 2 and "not a loopback address" in proc.stderr
    bad = tmp_path / "bad.har"
    bad.write_text('{"log": {"entries": [')
    proc = webdojo("cache", "import", bad, "--out", tmp_path / "b")
    assert proc.returncode == 2 and "bad.har" in proc.stderr


def test_import_of_the_iana_crawl(tmp_path: Path) -> None:
    out = tmp_path / "iana"
    crawl = shared_file("warc/iana/iana.warc.gz")
    result = last_json(webdojo("cache", "import", crawl, "--out", out, "--json"))
    assert result == {"out": str(out), "exchanges": 171, "skipped": 0, "files": 1}
    meta = json.loads((out / "archive.json").read_text())
    assert meta["webdojo_archive"] == 1 and meta["exchanges"] == 171


def test_a_policy_records_a_task_file_and_run_and_eval_replay_it(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    task = {
        "schema_version": 2, "id": "volatile.search",
        "instruction": "Search for hats and name the first result.",
        "website": "http://www.volatile.test/", "start_url": "http://www.volatile.test/",
        "source": "test", "reference_answers": [{"type": "golden", "answer": "201 Wool Beanie"}],
        "solution": [{"type": "click", "target": {"role": "link", "name": "Search hats"}},
                     {"type": "stop", "answer": "201 Wool Beanie"}],
    }  # fmt: skip
    tasks.write_text(json.dumps(task) + "\n")
    archive = tmp_path / "archive"
    with VolatileSite() as site:
        recorded = last_json(webdojo("cache", "record", tasks, "--out", archive, "--policy",
                                     "scripted", "--visits", "2", "--json", *resolve(site)))  # fmt: skip
        hits = site.hits
    assert recorded["episodes"] == 2 and recorded["visits"] == 2 and recorded["exchanges"] > 20
    assert (archive / "run" / "episodes.jsonl").is_file()  # what the policy did, kept with it
    # the site is gone: the run is served from the archive alone, through the same actions
    out = tmp_path / "replayed"
    summary = last_json(webdojo("run", "--tasks", tasks, "--archive", archive, "--out", out,
                                "--json"))  # fmt: skip
    assert summary["episodes"] == 1 and hits > 0
    episode = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["final_url"] == "http://www.volatile.test/search?q=hats&page=1"
    assert "201 Wool Beanie" in episode["final_state"]["text"]
    # the same task file as an eval suite's set: replayed from the archive, judged by its answer
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: replayed\nsets:\n"
                     "  - {name: volatile, tasks: tasks.jsonl, archive: archive, judge: exact}\n")  # fmt: skip
    result = last_json(webdojo("eval", "--suite", suite, "--policy", "scripted", "--out",
                               tmp_path / "eval", "--json"))  # fmt: skip
    assert result["episodes"] == result["scored"] == 1 and result["faults"] == 0
    assert result["success"] == 1.0 and result["by_task"] == {"volatile.search": 1.0}
    manifest = json.loads((tmp_path / "eval" / "manifest.json").read_text())
    assert manifest["judges"] == {"volatile": "exact"}
    episode = json.loads((tmp_path / "eval" / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["final_url"] == "http://www.volatile.test/search?q=hats&page=1"
