"""``webdojo bench rollout`` runs end to end with tiny settings and reports every leg: four
episodes, two in flight (slots refilled twice, so the async legs have a steady phase; the sync
leg runs one batch of two) and one timed latency step a side after the warm-up."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from webdojo.bench.rollout_bench import run_rollout_bench
from webdojo.bench.rollout_report import rollout_bench_table
from webdojo.bench.rollout_result import RolloutBenchConfig
from webdojo.browser import find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TINY = RolloutBenchConfig(
    episodes=4,
    in_flight=2,
    policy_calls=2,
    env_calls=2,
    latency_median_s=0.02,
    latency_sigma=0.3,
    saturation_sessions=2,
    saturation_warmup_s=0.2,
    saturation_s=2.0,  # long enough for a step to end inside it on a loaded machine
    saturation_rounds=1,
    latency_steps=1,
    queue_duration_s=1.0,
    queue_sessions=(2, 1),
)


async def test_tiny_bench_reports_every_leg() -> None:
    logged: list[str] = []
    result = await run_rollout_bench(TINY, log=logged.append)
    assert result.skipped == [], result.skipped
    assert find_chromium() in result.machine["chromium"]  # which build ran is on record
    legs = {r.name: r for r in result.rollouts}
    assert set(legs) == {"async in-process", "sync in-process", "async server"}
    assert legs["async in-process"].episodes == legs["async server"].episodes == 4
    assert legs["sync in-process"].episodes == 2  # one batch of the same workload
    for leg in legs.values():
        assert leg.faults == 0 and leg.steps > 0 and leg.wall_s > 0
        assert leg.step_p50_ms is not None and leg.step_p90_ms >= leg.step_p50_ms
        assert leg.cpu["tree_util"] >= 0 and 0 <= leg.cpu["system_util"] <= 1
    # the same workload: each engine took the same steps for the same episodes
    assert legs["async in-process"].steps == legs["async server"].steps
    assert {s.name for s in result.saturation} == {"raw", "raw CDP", "in-process", "server"}
    assert all(s.steps > 0 for s in result.saturation)
    assert set(result.latency_ms) == {"in-process", "server"}
    assert result.queues is not None and {"per_op", "fifo"} <= set(result.queues)
    targets = result.targets()
    assert set(targets) == {
        "async_over_sync",
        "async_over_sync_steady",
        "server_over_raw",
        "server_latency_ratio",
    }
    assert all(t["value"] is not None and t["value"] > 0 for t in targets.values())
    ceiling = result.cpu_ceiling()
    assert ceiling is not None and ceiling["cpu_ms_per_step"] > 0 and ceiling["steps_per_s"] > 0
    data = json.loads(json.dumps(result.to_json()))
    assert data["rollouts"]["async server"]["episodes"] == 4
    assert data["server_over_raw_cdp"] > 0 and data["inprocess_over_raw_cdp"] > 0
    console = Console(file=io.StringIO(), width=100)
    console.print(rollout_bench_table(result))
    text = console.file.getvalue()
    assert "async / sync steps/s" in text and "raw" in text and "CPU ceiling" in text
    assert logged
