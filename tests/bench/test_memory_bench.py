"""``webdojo bench memory``: PSS per stepping session of a real ``webdojo serve`` process tree,
read by process kind, and the JSON names scripts read."""

from __future__ import annotations

import os

import psutil
import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.bench.memory_bench import (
    CountResult,
    parse_counts,
    process_kind,
    summarize,
    tree_pss,
)
from webdojo.errors import ConfigError


@pytest.mark.browser
@pytest.mark.slow
def test_a_server_tree_is_measured_idle_and_while_its_sessions_step() -> None:
    result = last_json(
        webdojo("bench", "memory", "--sessions", "2", "--warmup", "1", "--window", "2", "--json")
    )
    assert result["target_mb"] == 120.0
    (count,) = result["counts"]
    assert count["sessions"] == 2 and count["steps"] >= 1 and count["samples"] >= 1
    # the server's own process, Playwright's driver, Chromium and a renderer per session
    assert {"python", "driver", "browser", "renderer"} <= set(count["by_kind"])
    assert count["processes"]["renderer"] >= 2
    # each kind is rounded to 0.1 MB, as is the total
    slack = 0.05 * (len(count["by_kind"]) + 1) + 1e-6
    assert sum(count["by_kind"].values()) == pytest.approx(count["stepping_mb"], abs=slack)
    assert 0 < count["idle_mb"] <= count["stepping_max_mb"]
    assert count["per_session_mb"] == round(count["stepping_mb"] / 2, 1)
    assert count["marginal_mb"] == round((count["stepping_mb"] - count["idle_mb"]) / 2, 1)


def test_bad_session_counts_are_refused_before_any_server_starts() -> None:
    for bad in ("0", "8,0", "eight", "", " , "):
        with pytest.raises(ConfigError, match="--sessions"):
            parse_counts(bad)
    assert parse_counts("8, 32") == [8, 32]
    out = webdojo("bench", "memory", "--sessions", "eight")
    assert out.returncode == 2 and "--sessions 'eight'" in out.stderr


def test_this_process_is_python_and_its_pss_is_read() -> None:
    assert process_kind(psutil.Process(os.getpid())) == "python"
    kinds = tree_pss(os.getpid())
    assert kinds["python"][0] > 0 and kinds["python"][1] >= 1


def test_the_summary_is_the_median_sample_so_its_kinds_add_up() -> None:
    result = CountResult(sessions=4, idle_mb=100.0)
    samples = [
        {"renderer": (300.0, 4), "python": (80.0, 1)},
        {"renderer": (100.0, 4), "python": (80.0, 1)},
        {"renderer": (200.0, 4), "python": (80.0, 1)},
    ]
    summarize(result, samples)
    assert (result.stepping_mb, result.stepping_max_mb, result.samples) == (280.0, 380.0, 3)
    assert result.by_kind == {"python": 80.0, "renderer": 200.0}
    assert (result.per_session_mb, result.marginal_mb) == (70.0, 45.0)
