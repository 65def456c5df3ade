"""``python -m webdojo.bench.leak_bench`` runs worker episodes and reports growth per window."""

from __future__ import annotations

import json

import pytest

from webdojo.bench.leak_bench import main

pytestmark = pytest.mark.browser


def test_leak_bench_reports_both_windows(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--warmup", "1", "--first", "2", "--then", "2", "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    data = json.loads(out[-1])
    assert (data["warmup"], data["first"], data["then"]) == (1, 2, 2)
    for key in ("traced_first_kb", "traced_then_kb", "rss_first_mb", "rss_then_mb"):
        assert isinstance(data[key], float)
    assert data["traced_bytes_per_episode"] == round(data["traced_then_kb"] * 1000 / 2, 1)
    assert 0 < len(data["top_sites"]) <= 5 and all("site" in s for s in data["top_sites"])
    assert out[0].startswith("traced growth:")
