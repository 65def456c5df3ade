"""The cache benchmark end to end on small numbers, as users run it (no timing asserts): it
replays the volatile site without a miss, a false match or a request reaching the canary."""

from __future__ import annotations

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.bench.cache_lookup_bench import PROBE_KINDS

KEYS = (
    "served_rate", "by_level", "misses", "false_matches", "volatile_precision",
    "volatile_recall", "learn_rounds", "identical_hashes_on", "identical_hashes_off", "replays",
    "aborted_outbound", "canary_hits", "lookup_p50_ms", "lookup_p99_ms", "load_ms_live",
    "load_ms_replay",
)  # fmt: skip


@pytest.mark.browser
@pytest.mark.slow
def test_bench_cache_cli_quick() -> None:
    data = last_json(webdojo("bench", "cache", "--quick", "--replays", "3", "--json",
                             timeout=180))  # fmt: skip
    assert set(KEYS) <= set(data)
    assert data["replays"] == 3 and data["lookup_entries"] == 2000
    assert data["served_rate"] >= 0.99 and data["misses"] == 0
    assert data["false_matches"] == 0 and data["trap_checked"] > 0
    assert data["page_mismatches"] == 0
    assert data["canary_hits"] == 0 and data["canary_armed"]
    assert data["identical_hashes_on"] == 3
    assert data["lookup_wrong_level"] == 0
    assert set(data["lookup_by_level"]) == set(PROBE_KINDS)
    assert 0 < data["volatile_precision"] <= 1 and 0 < data["volatile_recall"] <= 1
