"""The paired sign-flip permutation test: is the mean per-task difference between two runs zero?

Under the null hypothesis that the two runs are exchangeable on every task, each task's
difference ``d_i = share_B - share_A`` is as likely to have come out with the opposite sign.
The test statistic is ``|mean d_i|``; the two-sided p-value is the share of the 2^n sign
assignments whose statistic is at least the observed one. It assumes neither normality (a paired
t-test would, and success shares near 0 or 1 are far from normal) nor independent episodes
(only tasks are the units), and it is exact for small samples, where the Wilcoxon signed-rank
test's ranks would throw away how large each difference was.

Tasks with ``d_i = 0`` contribute nothing whatever their sign, so only the nonzero differences
are flipped. With at most ``EXACT_MAX`` (20) of them every assignment is enumerated (at most
2^20, about a million sums, built by doubling); above that, ``FLIPS`` (200,000) random
assignments are drawn from ``default_rng(seed)`` and ``p = (hits + 1) / (FLIPS + 1)``, which
counts the observed assignment and so is never 0 (Phipson & Smyth, 2010).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

EXACT_MAX = 20  # nonzero differences up to which all sign assignments are enumerated
FLIPS = 200_000  # random sign assignments above that
_ROWS = 20_000  # random assignments per chunk (memory only)


@dataclass(frozen=True)
class SignFlipResult:
    """A p-value and the name of the test that gave it."""

    p_value: float
    test: str  # e.g. "paired sign-flip permutation test over tasks (two-sided, exact)"


def _tolerance(values: np.ndarray) -> float:
    # sums of the same numbers in another order differ by rounding only
    return 1e-9 * max(1.0, float(np.abs(values).sum()))


def _exact(nonzero: np.ndarray, observed: float) -> float:
    sums = np.zeros(1, dtype=np.float64)
    for d in nonzero:  # every assignment's sum, doubling once per difference
        sums = np.concatenate((sums + d, sums - d))
    hits = int((np.abs(sums) >= observed - _tolerance(nonzero)).sum())
    return hits / len(sums)


def _monte_carlo(nonzero: np.ndarray, observed: float, flips: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    total, width = float(nonzero.sum()), len(nonzero)
    hits, done = 0, 0
    while done < flips:
        rows = min(_ROWS, flips - done)
        raw = rng.integers(0, 256, size=(rows, (width + 7) // 8), dtype=np.uint8)
        flipped = np.unpackbits(raw, axis=1, count=width)  # one random bit per sign
        sums = total - 2.0 * (flipped @ nonzero)  # the sum with the flipped signs negated
        hits += int((np.abs(sums) >= observed - _tolerance(nonzero)).sum())
        done += rows
    return (hits + 1) / (flips + 1)


def sign_flip_test(
    differences: Sequence[float],
    *,
    exact_max: int = EXACT_MAX,
    flips: int = FLIPS,
    seed: int = 0,
) -> SignFlipResult:
    """The two-sided paired sign-flip permutation test of mean(``differences``) = 0 (see the
    module docstring). No nonzero difference: p = 1."""
    d = np.asarray(differences, dtype=np.float64)
    nonzero = d[d != 0]
    observed = abs(float(nonzero.sum()))
    name = "paired sign-flip permutation test over tasks (two-sided, {})"
    if len(nonzero) <= exact_max:
        return SignFlipResult(min(1.0, _exact(nonzero, observed)), name.format("exact"))
    p = _monte_carlo(nonzero, observed, flips, seed)
    return SignFlipResult(min(1.0, p), name.format(f"{flips} random sign flips, seed {seed}"))
