"""Learning-rate schedules in the reference trainer: each update's rate (metrics.jsonl) follows
the schedule asked for, a resumed run takes up the schedule where it stopped, and a schedule we
do not know is refused before anything is written."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from train_fixtures import examples

from webdojo.errors import ConfigError
from webdojo.training.trainer import METRICS, TrainConfig, train

LR = 1e-2


def rates(out: Path) -> list[float]:
    return [json.loads(line)["lr"] for line in (out / METRICS).read_text().splitlines()]


def config(out: Path, schedule: str, warmup: int = 0, steps: int = 8) -> TrainConfig:
    return TrainConfig(
        out=out,
        steps=steps,
        batch_size=2,
        lr=LR,
        lr_schedule=schedule,
        warmup_steps=warmup,
        progress=False,
    )


@pytest.mark.parametrize(
    ("schedule", "warmup", "want"),
    [
        ("constant", 0, [LR] * 8),
        ("constant", 2, [0, LR / 2] + [LR] * 6),
        ("linear", 0, [LR * (8 - s) / 8 for s in range(8)]),
        ("cosine", 2, [0, LR / 2] + [LR * (1 + math.cos(math.pi * s / 6)) / 2 for s in range(6)]),
    ],
)
def test_each_update_uses_the_rate_its_schedule_gives(
    tmp_path: Path, schedule: str, warmup: int, want: list[float]
) -> None:
    train(config(tmp_path, schedule, warmup), examples(3, image=False))
    assert rates(tmp_path) == pytest.approx(want)


def test_a_resumed_run_takes_up_its_schedule_where_it_stopped(tmp_path: Path) -> None:
    """A run stopped after its 4th update and resumed reads the rates (and so the losses) of a
    run that was never stopped."""
    data = examples(5, image=False)
    whole = replace(config(tmp_path / "whole", "cosine", warmup=1), checkpoint_every=4)
    train(whole, data)
    stopped = tmp_path / "stopped"
    shutil.copytree(tmp_path / "whole", stopped)
    shutil.rmtree(stopped / "checkpoints" / "step-000008")  # as if killed after update 4
    train(replace(whole, out=stopped, resume=True), data)
    assert rates(stopped) == pytest.approx(rates(tmp_path / "whole"))
    got, want = (
        [json.loads(line)["loss"] for line in (out / METRICS).read_text().splitlines()]
        for out in (stopped, tmp_path / "whole")
    )
    assert got == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize(
    ("schedule", "warmup", "message"),
    [("step", 0, "choose one of"), ("cosine", 8, "fewer than the 8 updates")],
)
def test_a_bad_schedule_is_refused_before_anything_is_written(
    tmp_path: Path, schedule: str, warmup: int, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        train(config(tmp_path / "out", schedule, warmup), examples(3, image=False))
    assert not (tmp_path / "out").exists()
