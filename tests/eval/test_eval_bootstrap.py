"""The nested bootstrap, the paired bootstrap and the sign-flip permutation test."""

from __future__ import annotations

import numpy as np
import pytest

from webdojo.eval.bootstrap import nested_bootstrap, paired_bootstrap
from webdojo.eval.permutation import sign_flip_test


def random_groups(tasks: int, repeats: int, seed: int = 1) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    return [list(map(float, rng.integers(0, 2, size=repeats))) for _ in range(tasks)]


def test_the_interval_holds_the_mean_and_repeats_for_a_seed() -> None:
    groups = random_groups(40, 3)
    first = nested_bootstrap(groups, seed=7)
    assert first == nested_bootstrap(groups, seed=7)
    assert first.lo is not None and first.hi is not None and first.mean is not None
    assert first.lo < first.mean < first.hi
    assert first.mean == pytest.approx(np.mean([np.mean(g) for g in groups]))
    assert first.n_tasks == 40
    assert first.method == (
        "bootstrap over tasks, repeats resampled within each task (10000 resamples, seed 7)"
    )
    assert nested_bootstrap(groups, seed=8) != first


def test_half_of_fifty_tasks_gives_the_textbook_interval() -> None:
    groups = [[1.0]] * 25 + [[0.0]] * 25
    interval = nested_bootstrap(groups)
    assert interval.mean == 0.5
    # binomial standard error sqrt(.25 / 50) = 0.0707: about 0.36 - 0.64
    assert interval.lo == pytest.approx(0.36, abs=0.02)
    assert interval.hi == pytest.approx(0.64, abs=0.02)


def test_repeats_that_agree_widen_nothing() -> None:
    once = [[1.0]] * 20 + [[0.0]] * 30
    thrice = [[1.0] * 3] * 20 + [[0.0] * 3] * 30
    a, b = nested_bootstrap(once, seed=3), nested_bootstrap(thrice, seed=3)
    assert (a.mean, a.lo, a.hi) == (b.mean, b.lo, b.hi)


def test_repeats_that_disagree_add_their_own_uncertainty() -> None:
    # every task succeeds half the time: no spread between tasks, all of it within them
    interval = nested_bootstrap([[1.0, 0.0]] * 50)
    assert interval.mean == 0.5
    assert interval.lo is not None and interval.hi is not None
    assert interval.lo < 0.5 < interval.hi
    assert interval.lo >= 0.0 and interval.hi <= 1.0


def test_edge_cases() -> None:
    empty = nested_bootstrap([])
    assert (empty.mean, empty.lo, empty.hi, empty.n_tasks) == (None, None, None, 0)
    assert empty.ci95() == [None, None]
    one = nested_bootstrap([[1.0]])
    assert (one.mean, one.lo, one.hi, one.n_tasks) == (1.0, 1.0, 1.0, 1)
    alone = nested_bootstrap([[1.0, 0.0, 1.0, 0.0]])
    assert alone.lo is not None and alone.hi is not None
    assert alone.lo < alone.mean == 0.5 < alone.hi
    same = nested_bootstrap([[0.25]] * 7 + [[0.25, 0.25]] * 3)
    assert same.lo == same.hi == same.mean == 0.25
    with pytest.raises(ValueError, match="at least one"):
        nested_bootstrap([[1.0], []])
    with pytest.raises(ValueError, match="resamples"):
        nested_bootstrap([[1.0]], resamples=0)


def test_uneven_repeats_are_resampled_within_their_own_task() -> None:
    groups = [[1.0], [0.0, 1.0], [1.0, 1.0, 0.0], [0.0] * 5]
    interval = nested_bootstrap(groups, resamples=2000)
    assert interval.mean == pytest.approx((1 + 0.5 + 2 / 3 + 0) / 4)
    assert interval.lo is not None and interval.hi is not None
    assert 0.0 <= interval.lo < interval.mean < interval.hi <= 1.0


def test_the_paired_bootstrap_of_identical_runs_is_zero() -> None:
    groups = random_groups(30, 2)
    diff = paired_bootstrap(groups, groups)
    assert diff.mean == 0.0
    assert diff.lo is not None and diff.hi is not None
    assert diff.lo <= 0.0 <= diff.hi  # repeats still vary within each run
    constant = [[1.0]] * 10 + [[0.0]] * 10
    assert paired_bootstrap(constant, constant).ci95() == [0.0, 0.0]


def test_a_paired_improvement_stays_above_zero() -> None:
    a = random_groups(60, 1, seed=4)
    b = [[1.0] if i % 10 == 0 else g for i, g in enumerate(a)]  # B fixes every 10th task
    diff = paired_bootstrap(a, b)
    assert diff.mean == pytest.approx(np.mean([bb[0] - aa[0] for aa, bb in zip(a, b, strict=True)]))
    assert diff.lo is not None and diff.hi is not None and diff.lo >= 0.0
    with pytest.raises(ValueError, match="length"):
        paired_bootstrap(a, b[:-1])


def test_sign_flips_exact_below_twenty_one_differences() -> None:
    result = sign_flip_test([1.0] * 10)
    assert result.p_value == pytest.approx(2 / 2**10)
    assert result.test == "paired sign-flip permutation test over tasks (two-sided, exact)"
    assert sign_flip_test([1.0, -1.0] * 5).p_value == 1.0
    assert sign_flip_test([0.0] * 12).p_value == 1.0
    assert sign_flip_test([]).p_value == 1.0


def test_sign_flips_sampled_above_twenty_differences() -> None:
    result = sign_flip_test([1.0] * 25)
    assert result.p_value == pytest.approx(1 / 200_001)
    assert "200000 random sign flips" in result.test
    assert sign_flip_test([1.0] * 25) == result  # seeded


def test_sampled_and_exact_p_values_agree() -> None:
    rng = np.random.default_rng(5)
    d = list(rng.choice([-1.0, -0.5, 0.5, 1.0], size=21) + 0.25)
    exact = sign_flip_test(d, exact_max=21)
    sampled = sign_flip_test(d)
    assert "exact" in exact.test and "random" in sampled.test
    assert sampled.p_value == pytest.approx(exact.p_value, abs=0.01)
