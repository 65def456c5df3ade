"""Rates read against a baseline round by round (``webdojo.bench.ratios``), as the benches
whose contenders take turns report them."""

from __future__ import annotations

import statistics

from webdojo.bench.ratios import paired_ratio
from webdojo.bench.rollout_legs import Saturation
from webdojo.bench.rollout_result import RolloutBenchConfig, RolloutBenchResult


def test_a_drift_that_moves_both_sides_of_a_round_leaves_the_ratio_alone() -> None:
    # the machine slows by a fifth over the run; the contender always does 0.95 of the floor
    assert paired_ratio([38.0, 34.2, 30.4], [40.0, 36.0, 32.0]) == 0.95


def test_it_is_the_median_of_the_rounds_ratios_not_the_ratio_of_the_medians() -> None:
    floor, contender = [40.0, 32.0, 36.0], [36.0, 34.0, 30.0]
    assert paired_ratio(contender, floor) == 0.9  # 0.9, 1.0625, 0.833
    assert round(statistics.median(contender) / statistics.median(floor), 3) == 0.944


def test_no_ratio_without_rounds_on_both_sides_or_with_an_empty_base_round() -> None:
    assert paired_ratio([], []) is None
    assert paired_ratio([1.0, 2.0], [1.0]) is None
    assert paired_ratio([1.0], [0.0]) is None


def _sat(name: str, rounds: tuple[float, ...]) -> Saturation:
    return Saturation(name, 8, 100, 6.0, None, None, rounds=rounds)


def test_the_rollout_bench_reports_its_floor_ratios_round_by_round() -> None:
    result = RolloutBenchResult(config=RolloutBenchConfig())
    result.saturation = [
        _sat("raw", (30.0, 27.0, 24.0)),
        _sat("raw CDP", (40.0, 36.0, 32.0)),
        _sat("server", (38.0, 34.2, 30.4)),
    ]
    assert result.floor_ratio("server") == 0.95
    assert result.over("server", "raw") == round(38 / 30, 3)
    assert result.floor_ratio("in-process") is None  # that leg did not run
    # a single measurement (no rounds) is read as the ratio of the two rates
    result.saturation = [
        Saturation("raw CDP", 8, 120, 6.0, None, None),
        Saturation("server", 8, 60, 6.0, None, None),
    ]
    assert result.floor_ratio("server") == 0.5
