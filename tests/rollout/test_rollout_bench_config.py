"""``webdojo bench rollout`` options: bad values fail before anything is launched."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from webdojo.bench.rollout_bench import RolloutBenchConfig
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
