"""``webdojo bench adapters`` as a user runs it: every way in measured on the same page, the
ratios against the in-process step, and the JSON names scripts read. One measured step per leg
(after the bench's warm-up): the legs' start-up, not their steps, is what the test pays for."""

from __future__ import annotations

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.bench.adapters_bench import AdaptersBenchResult, run_adapters_bench
from webdojo.errors import ConfigError


@pytest.mark.browser
@pytest.mark.slow
def test_every_way_in_is_measured_against_the_in_process_step() -> None:
    result = last_json(webdojo("bench", "adapters", "--iterations", "1", "--rounds", "1", "--json"))
    assert set(result) >= {"inprocess_ms", "gym_ms", "trl_ms", "openenv_ms", "ratios"}
    legs = ("inprocess", "make", "gym", "http", "openenv", "inprocess_trl", "trl")
    for leg in legs:  # the test extra has them all
        assert result[f"{leg}_ms"] > 0 and result["ratios"].get(leg, 1) > 0, leg
    assert_ratio(result["ratios"]["gym"], result["gym_ms"], result["inprocess_ms"])
    assert result["target_ratio"] == 1.05
    # what each adapter adds over the same browser work without it
    overhead = result["overhead"]
    assert set(overhead) == {"make", "gym", "openenv", "trl"}
    assert_ratio(overhead["openenv"], result["openenv_ms"], result["http_ms"])
    assert_ratio(overhead["trl"], result["trl_ms"], result["inprocess_trl_ms"])


def assert_ratio(ratio: float, ms: float, base_ms: float) -> None:
    """``ratio`` (3 decimals) is ``ms / base_ms`` as the bench computed it from the unrounded
    times: the printed times are rounded to 0.01 ms, which can move the third decimal."""
    slack = (ms / base_ms) * (0.005 / ms + 0.005 / base_ms) + 0.0005
    assert abs(ratio - ms / base_ms) <= slack + 1e-9, (ratio, ms, base_ms)


def test_ratios_are_medians_of_per_round_ratios() -> None:
    """A round whose browsers were slow moves its own ratio, not the figure: each round's legs
    are compared with that round's floor, then the rounds' ratios take their median."""
    result = AdaptersBenchResult(iterations=6, rounds=3)
    result.add_round({"inprocess": [10.0, 10.0], "make": [11.0, 11.0]})  # 1.1
    result.add_round({"inprocess": [30.0, 30.0], "make": [30.0, 30.0]})  # 1.0 (a slow round)
    result.add_round({"inprocess": [10.0, 10.0], "make": [10.2, 10.2]})  # 1.02
    assert result.ratio("make") == 1.02
    assert result.legs["make"] == [11.0, 11.0, 30.0, 30.0, 10.2, 10.2]  # p50s pool the rounds
    assert result.to_json()["rounds"] == 3
    assert result.ratio("gym") is None  # not run


def test_more_rounds_than_steps_is_refused_before_any_browser_starts() -> None:
    with pytest.raises(ConfigError, match="rounds"):
        run_adapters_bench(iterations=2, rounds=3)
