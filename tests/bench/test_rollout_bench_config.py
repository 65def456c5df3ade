"""``webdojo bench rollout`` options: bad values fail before anything is launched."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from webdojo.bench.rollout_legs import Contender, Saturation, saturation_rounds
from webdojo.bench.rollout_result import RolloutBenchConfig
from webdojo.cli import app
from webdojo.errors import ConfigError


@pytest.mark.parametrize(
    "args", [["--episodes", "0"], ["--in-flight", "-1"], ["--latency-median", "0"]]
)
def test_bad_options_exit_2_with_a_config_error(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["bench", "rollout", *args])
    assert result.exit_code == 2
    assert "config_error" in result.output


def test_the_default_workload_refills_every_slot_several_times() -> None:
    config = RolloutBenchConfig()
    assert config.episodes >= 4 * config.in_flight  # a rollout, not one wave of episodes
    with pytest.raises(ConfigError):
        RolloutBenchConfig(env_calls=0)


async def test_saturation_rounds_take_turns_and_report_the_median_round() -> None:
    order: list[str] = []
    rates = {"raw": iter([10, 30, 20]), "server": iter([9, 1, 8])}

    def contender(name: str) -> Contender:
        async def measure() -> Saturation:
            order.append(name)
            steps = next(rates[name])
            return Saturation(name, 2, steps, 1.0, 100.0 + steps, 200.0, {"tree_util": 0.5})

        return measure

    raw, server = await saturation_rounds(
        {"raw": contender("raw"), "server": contender("server")}, 3
    )
    assert order == ["raw", "server", "server", "raw", "raw", "server"]
    assert raw.steps_per_s == 20 and server.steps_per_s == 8  # medians, not the mean
    assert raw.rounds == (10, 30, 20) and raw.steps == 60 and raw.window_s == 3.0
    assert raw.p50_ms == 120.0 and raw.cpu == {"tree_util": 0.5}
    assert raw.to_json()["rounds_steps_per_s"] == [10, 30, 20]
