"""Confidence intervals of a success rate by a nested (two-stage) bootstrap over tasks.

The quantity reported is the mean over tasks of each task's success share (each task weighs
the same, however many repeats it has). Its uncertainty has two sources: which tasks the suite
happened to draw from the space of tasks like them, and the model's randomness on each task.
A bootstrap over episodes would treat the repeats of one task as independent draws and give
intervals too narrow; so, as Miller ("Adding Error Bars to Evals", 2024) recommends for
clustered questions, each resample

1. draws as many tasks as the suite has, with replacement (the between-task variation), then
2. draws, within each drawn task, as many of its outcomes as it has, with replacement (the
   within-task variation over repeats),

and takes the mean over the drawn tasks of their resampled shares. The 95% interval is the
2.5th and 97.5th percentile of those statistics (the percentile bootstrap: no normality assumed,
stays inside [0, 1]). With one repeat per task, step 2 changes nothing and this is the plain
bootstrap over tasks.

Reproducible: numpy's ``default_rng`` seeded from ``seed``, with one generator for the task
draws and another for the repeat draws (``SeedSequence.spawn``). So the tasks drawn depend only
on the seed and the number of tasks: a task whose repeats all agree (drawing among them changes
nothing, and nothing is drawn) gives exactly the interval it would give with one repeat.

``paired_bootstrap`` does the same for the difference between two runs on the same tasks: one
task draw for both runs (the pairing), repeats resampled within each task in each run.
Vectorized with numpy. Success outcomes (0/1) are resampled within a task by one binomial draw
(Binomial(m, c/m) successes among m draws from m outcomes with c successes: the same
distribution as m single draws); other values by drawing indices. 10,000 resamples of a few
hundred tasks take a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 10_000
LEVEL = 0.95  # the confidence level of every interval
_CELLS = 1_000_000  # drawn tasks per chunk of resamples: bounds memory, not the result


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95% interval; all None when there was nothing to estimate."""

    mean: float | None  # the estimate on the data itself (the mean of per-task means)
    lo: float | None  # 2.5th percentile of the bootstrap statistics
    hi: float | None  # 97.5th percentile
    method: str  # how it was computed, for the report
    n_tasks: int  # tasks it is estimated over

    def ci95(self) -> list[float | None]:
        """``[lo, hi]`` rounded for JSON."""
        return [round4(self.lo), round4(self.hi)]


def round4(value: float | None) -> float | None:
    """A float rounded to 4 decimals for JSON (None stays None)."""
    return None if value is None else round(float(value), 4)


def nested_method(resamples: int, seed: int) -> str:
    return (
        f"bootstrap over tasks, repeats resampled within each task "
        f"({resamples} resamples, seed {seed})"
    )


def paired_method(resamples: int, seed: int) -> str:
    return (
        f"paired bootstrap over tasks, repeats resampled within each task in each run "
        f"({resamples} resamples, seed {seed})"
    )


@dataclass(frozen=True)
class _Packed:
    """The outcomes of every task in flat arrays, for vectorized draws."""

    values: np.ndarray  # every outcome, task after task
    starts: np.ndarray  # index in ``values`` of each task's first outcome
    sizes: np.ndarray  # each task's number of outcomes
    means: np.ndarray  # each task's mean outcome
    constant: np.ndarray  # whether all of a task's outcomes are equal (nothing to resample)
    binary: bool  # every outcome is 0.0 or 1.0 (successes): resampled by binomial draws


def _pack(groups: Sequence[Sequence[float]]) -> _Packed:
    if any(len(g) == 0 for g in groups):
        raise ValueError("every task needs at least one scored outcome to be bootstrapped")
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    values = np.array([float(v) for g in groups for v in g], dtype=np.float64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    means = np.array([float(np.mean(g)) for g in groups], dtype=np.float64)
    constant = np.array([min(g) == max(g) for g in groups], dtype=bool)
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    return _Packed(values, starts, sizes, means, constant, binary)


def _rngs(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """One generator for the task draws and an independent one for the repeat draws."""
    tasks, repeats = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(tasks), np.random.default_rng(repeats)


def _chunks(resamples: int, n_tasks: int) -> list[int]:
    """Resamples per chunk; depends on the number of tasks only, never on the repeats."""
    rows = max(1, _CELLS // max(n_tasks, 1))
    return [min(rows, resamples - start) for start in range(0, resamples, rows)]


def _resampled_shares(p: _Packed, drawn: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each drawn task (any shape of task indices), the mean of a resample of its
    outcomes of its own size. Tasks whose outcomes all agree keep their mean undrawn.
    Successes (0/1) are drawn at once: the successes among m draws with replacement from m
    outcomes with c successes follow Binomial(m, c/m), the same distribution as drawing the
    m outcomes one by one, for one random number per task instead of m."""
    out = p.means[drawn]
    if p.binary:
        varied = drawn[~p.constant[drawn]]
        sizes_varied = p.sizes[varied]
        out[~p.constant[drawn]] = rng.binomial(sizes_varied, p.means[varied]) / sizes_varied
        return out
    sizes = p.sizes[drawn]
    varies = ~p.constant[drawn]
    for size in np.unique(p.sizes[~p.constant]):
        where = varies & (sizes == size)
        count = int(where.sum())
        if count == 0:
            continue
        picks = rng.integers(0, int(size), size=(count, int(size)))
        index = p.starts[drawn[where]][:, None] + picks
        out[where] = p.values[index].mean(axis=1)
    return out


def _resample(
    n: int,
    resamples: int,
    seed: int,
    statistic: Callable[[np.ndarray, np.random.Generator], np.ndarray],
) -> np.ndarray:
    """``resamples`` bootstrap statistics: each row of task draws (``n`` of ``n`` tasks, with
    replacement) goes to ``statistic`` with the generator for the repeat draws."""
    task_rng, repeat_rng = _rngs(seed)
    stats = np.empty(resamples, dtype=np.float64)
    done = 0
    for rows in _chunks(resamples, n):
        drawn = task_rng.integers(0, n, size=(rows, n))
        stats[done : done + rows] = statistic(drawn, repeat_rng)
        done += rows
    return stats


def _interval(
    mean: float, stats: np.ndarray, method: str, n_tasks: int, *, degenerate: bool
) -> Interval:
    if degenerate:  # nothing varies: the interval is the point
        return Interval(mean, mean, mean, method, n_tasks)
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(stats, [tail, 100 - tail])
    return Interval(mean, float(lo), float(hi), method, n_tasks)


def _check(resamples: int) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")


def nested_bootstrap(
    groups: Sequence[Sequence[float]], *, resamples: int = RESAMPLES, seed: int = 0
) -> Interval:
    """The mean over tasks of each task's mean outcome, with its 95% nested-bootstrap
    interval (see the module docstring). ``groups``: one task's scored outcomes each (1.0 /
    0.0; map graded rewards through ``eval_stats.succeeded`` first). No task: all None."""
    _check(resamples)
    method = nested_method(resamples, seed)
    if not groups:
        return Interval(None, None, None, method, 0)
    p = _pack(groups)
    n = len(p.sizes)

    def statistic(drawn: np.ndarray, repeat_rng: np.random.Generator) -> np.ndarray:
        return _resampled_shares(p, drawn, repeat_rng).mean(axis=1)

    stats = _resample(n, resamples, seed, statistic)
    degenerate = bool(np.ptp(p.values) == 0)
    return _interval(float(p.means.mean()), stats, method, n, degenerate=degenerate)


def paired_bootstrap(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Interval:
    """The mean over tasks of (B's share - A's share), with its 95% paired-bootstrap interval.
    ``a[i]`` and ``b[i]`` are the outcomes of the same task in the two runs. No task: None."""
    _check(resamples)
    if len(a) != len(b):
        raise ValueError(f"paired groups differ in length: {len(a)} tasks vs {len(b)}")
    method = paired_method(resamples, seed)
    if not a:
        return Interval(None, None, None, method, 0)
    pa, pb = _pack(a), _pack(b)
    n = len(pa.sizes)

    def statistic(drawn: np.ndarray, repeat_rng: np.random.Generator) -> np.ndarray:
        shares_a = _resampled_shares(pa, drawn, repeat_rng)
        shares_b = _resampled_shares(pb, drawn, repeat_rng)  # the same tasks: the pairing
        return (shares_b - shares_a).mean(axis=1)

    stats = _resample(n, resamples, seed, statistic)
    differences = pb.means - pa.means
    degenerate = bool(pa.constant.all() and pb.constant.all() and np.ptp(differences) == 0)
    return _interval(float(differences.mean()), stats, method, n, degenerate=degenerate)
