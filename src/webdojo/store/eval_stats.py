"""Evaluation statistics over stored rewards: pass@k with the unbiased estimator.

pass@k is the chance that at least one of k attempts at a task succeeds. With n >= k attempts
of which c succeeded, the unbiased estimate (Chen et al., 2021) is ``1 - C(n-c, k) / C(n, k)``,
averaged over tasks. Rewards of None (faults, website failures, blocked) are not attempts: they
are left out before counting, never scored 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import comb


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
    None). A reward counts as a success when it is 1.0 (or above 0.5 for graded rewards).
    Empty when the run has no task with several attempts."""
    scored = {task: rewards for task, rewards in groups.items() if rewards}
    chosen = default_ks(scored) if ks is None else sorted(set(ks))
    out: dict[str, float] = {}
    for k in chosen:
        usable = [r for r in scored.values() if len(r) >= k]
        if not usable:
            continue
        values = [pass_at_k(len(r), sum(x > 0.5 for x in r), k) for r in usable]
        out[str(k)] = round(sum(values) / len(values), 4)
    return out
