"""Evaluation statistics over stored rewards: pass@k, mean ± std over repeats, breakdowns.

pass@k is the chance that at least one of k attempts at a task succeeds. With n >= k attempts
of which c succeeded, the unbiased estimate (Chen et al., 2021) is ``1 - C(n-c, k) / C(n, k)``,
averaged over tasks. Rewards of None (faults, website failures, blocked) are not attempts: they
are left out before counting, never scored 0. The same holds for every rate here: a ``Rate``
counts unscored episodes apart. Repeated runs are reported as Weblica does, the mean ± standard
deviation of the per-repeat success rates (``over_repeats``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from statistics import fmean, stdev

SUCCESS_ABOVE = 0.5  # a graded reward (token F1) above this counts as a success


def succeeded(reward: float) -> bool:
    """Whether a scored reward is a success: 1.0, or a graded reward above 0.5 (an F1 of
    exactly 0.5 is not). Every count here and in the viewer uses this one rule."""
    return reward > SUCCESS_ABOVE


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one task with ``c`` successes in ``n`` attempts (``n >= k``)."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def group_rewards(pairs: Iterable[tuple[str, float | None]]) -> dict[str, list[float]]:
    """(task id, reward) pairs -> task id -> its scored rewards (None left out)."""
    groups: dict[str, list[float]] = {}
    for task_id, reward in pairs:
        if reward is not None:
            groups.setdefault(task_id, []).append(reward)
    return groups


def default_ks(groups: Mapping[str, list[float]]) -> list[int]:
    """1 and the largest k every task supports (its fewest attempts), when that is above 1."""
    fewest = min((len(r) for r in groups.values() if r), default=0)
    return [1, fewest] if fewest > 1 else []


def pass_at_ks(
    groups: Mapping[str, list[float]], ks: Iterable[int] | None = None
) -> dict[str, float]:
    """``{"1": .., "k": ..}``: pass@k averaged over tasks, for each k (``default_ks`` when
    None). A reward counts as a success by ``succeeded``.
    Empty when the run has no task with several attempts."""
    scored = {task: rewards for task, rewards in groups.items() if rewards}
    chosen = default_ks(scored) if ks is None else sorted(set(ks))
    out: dict[str, float] = {}
    for k in chosen:
        usable = [r for r in scored.values() if len(r) >= k]
        if not usable:
            continue
        values = [pass_at_k(len(r), sum(map(succeeded, r)), k) for r in usable]
        out[str(k)] = round(sum(values) / len(values), 4)
    return out


@dataclass(frozen=True)
class Rate:
    """Successes among scored episodes (rewards of None are counted apart, never as 0)."""

    scored: int = 0
    successes: int = 0
    unscored: int = 0

    @property
    def rate(self) -> float | None:
        return None if self.scored == 0 else self.successes / self.scored

    def add(self, reward: float | None) -> Rate:
        if reward is None:
            return Rate(self.scored, self.successes, self.unscored + 1)
        return Rate(self.scored + 1, self.successes + succeeded(reward), self.unscored)


def rates_by(pairs: Iterable[tuple[Hashable, float | None]]) -> dict[Hashable, Rate]:
    """(group, reward) pairs -> group -> its success rate: by difficulty, domain, site..."""
    out: dict[Hashable, Rate] = {}
    for group, reward in pairs:
        out[group] = out.get(group, Rate()).add(reward)
    return out


def mean_std(values: Sequence[float]) -> tuple[float, float] | None:
    """Mean and sample standard deviation (0 for one value); None for none."""
    if not values:
        return None
    return fmean(values), (stdev(values) if len(values) > 1 else 0.0)


def over_repeats(pairs: Iterable[tuple[int, float | None]]) -> tuple[float, float, int] | None:
    """Weblica's mean ± std: the success rate of each repeat (every task's r-th episode, or
    each of several runs), then their mean and standard deviation, and how many repeats. None
    when there are fewer than two repeats with scored episodes."""
    by_repeat = rates_by(pairs)
    rates = [r.rate for _, r in sorted(by_repeat.items(), key=lambda kv: str(kv[0]))]
    usable = [r for r in rates if r is not None]
    if len(usable) < 2:
        return None
    mean, std = mean_std(usable) or (0.0, 0.0)
    return round(mean, 4), round(std, 4), len(usable)
