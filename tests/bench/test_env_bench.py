"""The env benchmark runs and returns a sane, JSON-serializable result (no timing asserts): one
measured iteration after one warm-up, enough to run every measure and to show the warm-up is
left out of the counts."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from webdojo.bench.env_bench import STEPS, EnvBenchResult, env_bench_table, run_env_bench
from webdojo.browser import find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_env_bench_runs_and_reports() -> None:
    result = await run_env_bench(iterations=1, warmup=1)
    assert isinstance(result, EnvBenchResult) and find_chromium() in result.chromium
    assert set(result.raw) == set(result.webdojo) == set(STEPS)
    assert all(s.n == 1 and 0 < s.p50_ms <= s.p90_ms for s in result.webdojo.values())
    assert set(result.extras) == {
        "screenshot",
        "axtree_viewport",
        "axtree_full",
        "elements",
        "marks",
        "marks_pillow",
    }
    # resets through the warm pool, beside the cold one, against raw resets timed in turn
    assert set(result.pool) == {"reset_warm", "reset_warm_blank"}
    assert result.pool_raw is not None and all(s.n == 1 for s in result.pool.values())
    data = json.loads(json.dumps(result.to_json()))
    assert set(data["ratio_p50"]) == set(STEPS) and data["target_ratio"] == 1.15
    assert set(data["pool"]) == set(data["pool_ratio_p50"]) == set(result.pool)
    assert data["warm_reset_target_ms"] == 50.0
    assert result.pool_floor is not None and data["pool_floor_reset"]["n"] == 1
    assert set(data["extras_added_p50_ms"]) == set(result.extras) - {"screenshot"}
    console = Console(record=True, width=120)
    console.print(env_bench_table(result))
    text = console.export_text()
    assert "in-page step" in text and "reset (cold)" in text and "reset (warm pool)" in text
    assert "reset floor" in text
