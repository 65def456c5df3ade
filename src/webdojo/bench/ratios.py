"""A contender's rate read against a baseline measured in the same run, round by round.

Benches whose contenders take turns (every round runs each once, the order reversed every
round) pair each round's rate with the baseline's of the same round and report the median of
those ratios. A 2-core machine's speed drifts over a run (one contender's rounds spread over
32-42 steps/s in a run of ``bench rollout``): a drift slower than a round moves both sides of
a pair alike, where the ratio of two medians can take them from different rounds.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def paired_ratio(rates: Sequence[float], base: Sequence[float]) -> float | None:
    """The median over rounds of ``rates[i] / base[i]``, rounded to 3 places; None without
    rounds, with rounds missing on one side, or with a base round of no steps."""
    if not rates or len(rates) != len(base) or not all(base):
        return None
    return round(statistics.median(r / b for r, b in zip(rates, base, strict=True)), 3)
