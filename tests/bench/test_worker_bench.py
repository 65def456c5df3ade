"""The queue benchmark runs end to end (a smoke test: benchmarks report speed, tests do not)."""

from __future__ import annotations

import pytest

from webdojo.bench.worker_bench import QueueBenchConfig, compare_queue_modes, format_results

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]


async def test_queue_benchmark_runs_and_reports_every_mode() -> None:
    tiny = QueueBenchConfig(slow_sessions=2, fast_sessions=1, slow_page_ms=200, duration_s=1.0)
    result = await compare_queue_modes(tiny)
    for mode in ("alone", "per_op", "fifo"):
        assert result[mode]["fast_steps"] > 0 and result[mode]["fast_step_p50_ms"] is not None
    assert result["alone"]["slow_navigations_per_s"] == 0
    assert "per_op" in format_results(result)
