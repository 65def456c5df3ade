"""``webdojo select``: score the runs, apply a rule, mix in SFT data, write the selection."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from webdojo.errors import ConfigError
from webdojo.store.run_store import EPISODES
from webdojo.training.rewards import scored_episodes
from webdojo.training.samples import Sample, SelectionSummary, read_samples, write_selection
from webdojo.training.selection import BcSettings, Selected, select_bc, select_grpo, select_rft

RULES = ("bc", "rft", "grpo")


@dataclass(frozen=True)
class SelectSettings:
    rule: str
    judge: str | None = None  # whose verdicts score the runs (None: the only judge, or verifier)
    bc: BcSettings = field(default_factory=BcSettings)
    group_size: int | None = None  # grpo: rollouts per task
    sft: Path | None = None  # rft: an earlier selection (the SFT data) to mix in
    sft_share: float = 0.8  # rft: the share of that selection mixed in (BrowserAgent: 80%)
    seed: int = 0


def select(runs: list[Path], out: Path, settings: SelectSettings) -> SelectionSummary:
    """Select from ``runs`` (oldest first) into ``out``; see ``webdojo.training.selection``."""
    if settings.rule not in RULES:
        raise ConfigError(f"unknown rule {settings.rule!r}: choose from {', '.join(RULES)}")
    for run in runs:
        if not (run / EPISODES).is_file():
            raise ConfigError(f"{run} is not a run directory (no {EPISODES})")
    source, episodes = scored_episodes(runs, settings.judge)
    if settings.rule == "bc":
        selected = select_bc(episodes, settings.bc)
    elif settings.rule == "rft":
        selected = select_rft(episodes)
    else:
        selected = select_grpo(episodes, settings.group_size)
    samples = selected.samples + _sft_rows(settings)
    summary = SelectionSummary(
        rule=settings.rule,
        reward_source=source,
        runs=[str(r) for r in runs],
        settings=_settings(settings),
        kept=len(samples),
        episodes=selected.episodes,
        dropped=dict(sorted(selected.dropped.items())),
    )
    if not samples:
        raise ConfigError(f"the selection is empty: {_why_empty(selected)}; nothing was written")
    write_selection(out, samples, summary)
    return summary


def _sft_rows(settings: SelectSettings) -> list[Sample]:
    """BrowserAgent's mix: a seeded share of an earlier selection, marked ``sft``."""
    if settings.sft is None:
        return []
    if settings.rule != "rft":
        raise ConfigError("--sft mixes SFT data into rejection fine-tuning: use it with --rule rft")
    if not 0.0 < settings.sft_share <= 1.0:
        raise ConfigError(f"--sft-share must be in (0, 1], got {settings.sft_share}")
    rows = list(read_samples(settings.sft))
    taken = random.Random(settings.seed).sample(rows, round(len(rows) * settings.sft_share))
    return [row.model_copy(update={"rule": "sft"}) for row in taken]


def _settings(settings: SelectSettings) -> dict[str, object]:
    data = asdict(settings)
    data["sft"] = None if settings.sft is None else str(settings.sft)
    return data


def _why_empty(selected: Selected) -> str:
    if not selected.dropped:
        return "the runs hold no finished episodes"
    reasons = ", ".join(f"{n} {why}" for why, n in selected.dropped.most_common())
    return f"everything was dropped ({reasons})"
