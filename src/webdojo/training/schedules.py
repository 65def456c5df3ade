"""Learning-rate schedules: how the rate moves over a run's updates (transformers' own).

``constant`` keeps ``lr`` for every update (after the warmup, if any); ``linear`` and
``cosine`` bring it down to 0 at the last update. With ``cosine`` (and a quarter more
updates) held-out success on three task families went from 4% to 53% (docs/learning.md,
run FG)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from webdojo.errors import ConfigError

if TYPE_CHECKING:
    import torch

SCHEDULES = ("constant", "linear", "cosine")


def check_schedule(name: str, warmup_steps: int, steps: int) -> None:
    """ConfigError for a schedule we do not know or a warmup longer than the run."""
    if name not in SCHEDULES:
        raise ConfigError(f"lr schedule {name!r}: choose one of {', '.join(SCHEDULES)}")
    if warmup_steps < 0 or warmup_steps >= max(steps, 1):
        raise ConfigError(
            f"{warmup_steps} warmup steps: there must be fewer than the {steps} updates, and >= 0"
        )


def make_scheduler(
    optimizer: torch.optim.Optimizer,
    name: str,
    lr: float,
    warmup_steps: int,
    steps: int,
    start: int = 0,
) -> torch.optim.lr_scheduler.LRScheduler:
    """The schedule from ``lr`` over ``steps`` updates, placed at update ``start`` (a resumed
    run): the rate is a function of the update's number alone, so checkpoints keep no state.
    The settings are those ``check_schedule`` passed (the trainer checks before any step)."""
    from transformers import get_scheduler

    hf_name = "constant_with_warmup" if name == "constant" and warmup_steps else name
    for group in optimizer.param_groups:  # a resumed optimizer holds its last update's rate
        group["lr"] = group["initial_lr"] = lr
    scheduler = get_scheduler(hf_name, optimizer, warmup_steps, steps)
    with warnings.catch_warnings():  # "step() before optimizer.step()": on purpose, to skip
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(start):
            scheduler.step()
    return scheduler
