"""What ``webdojo train loop`` reports (``loop.json``), without the loop's heavy imports: the
command line reads it before torch is loaded."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

Rates = dict[str, float | None]  # split ("train", "held_out") -> a share, None: no episodes


@dataclass
class LoopReport:
    before: Rates = field(default_factory=dict)  # greedy success rate per split
    after: Rates = field(default_factory=dict)
    # split -> share of replies that parsed into an action: a model learns the format long
    # before it learns the tasks, and this shows it
    valid_before: Rates = field(default_factory=dict)
    valid_after: Rates = field(default_factory=dict)
    iterations: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.0%}"
