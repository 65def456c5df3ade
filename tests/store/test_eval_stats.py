"""Evaluation statistics, checked against values worked out by hand."""

from __future__ import annotations

import pytest

from webdojo.store.eval_stats import (
    Rate,
    default_ks,
    group_rewards,
    mean_std,
    over_repeats,
    pass_at_k,
    pass_at_ks,
    rates_by,
    succeeded,
)


def test_pass_at_k_by_hand() -> None:
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)  # 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert pass_at_k(5, 2, 3) == pytest.approx(0.9)  # 1 - C(3,3)/C(5,3) = 1 - 1/10
    assert pass_at_k(4, 0, 4) == 0.0 and pass_at_k(4, 3, 2) == 1.0  # n - c < k: always one
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)  # pass@1 is the success rate
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_unscored_rewards_are_not_attempts() -> None:
    groups = group_rewards([("a", 1.0), ("a", None), ("a", 0.0), ("b", 0.0), ("b", 0.0)])
    assert groups == {"a": [1.0, 0.0], "b": [0.0, 0.0]}
    assert default_ks(groups) == [1, 2]
    assert pass_at_ks(groups) == {"1": 0.25, "2": 0.5}  # a: 0.5 and 1.0; b: 0 and 0
    assert pass_at_ks({"a": [1.0]}) == {} and pass_at_ks(groups, ks=[3]) == {}


def test_rates_and_repeats() -> None:
    rates = rates_by([("easy", 1.0), ("easy", 0.0), ("hard", None), ("easy", 0.9)])
    assert rates["easy"] == Rate(scored=3, successes=2, unscored=0)
    assert rates["hard"].rate is None and rates["hard"].unscored == 1
    # repeat 0: 1 of 2 succeed; repeat 1: 0 of 2 -> 0.25 ± 0.3536 over 2 repeats
    assert over_repeats([(0, 1.0), (0, 0.0), (1, 0.0), (1, 0.0), (1, None)]) == (
        0.25, 0.3536, 2
    )  # fmt: skip
    assert over_repeats([(0, 1.0), (0, 0.0)]) is None  # one repeat: no spread to report
    assert mean_std([0.5]) == (0.5, 0.0) and mean_std([]) is None


def test_mean_and_std_over_several_runs() -> None:
    """Weblica reports repeated runs as mean ± std: one success rate per run directory (the
    run's index as the repeat), the sample standard deviation across them."""
    runs = [
        [1.0, 1.0, 0.0, 0.0],  # run 0: 2 of 4
        [1.0, 0.0, 0.0, None],  # run 1: 1 of 3 scored (a fault is left out, not a 0)
        [1.0, 1.0, 1.0, 0.0],  # run 2: 3 of 4
    ]
    pairs = [(index, reward) for index, rewards in enumerate(runs) for reward in rewards]
    # rates 1/2, 1/3, 3/4: mean 19/36 = 0.5278; deviations -1/36, -7/36, 8/36 -> sample
    # variance (1 + 49 + 64) / 36^2 / 2 = 0.043981 -> std 0.2097
    assert over_repeats(pairs) == (0.5278, 0.2097, 3)
    assert over_repeats([(0, None), (1, 1.0), (2, None)]) is None  # one scored run only


def test_pass_at_k_with_unequal_attempts() -> None:
    """Tasks with fewer scored attempts than k are left out of pass@k for that k; the default
    k is the largest every task supports."""
    groups = group_rewards(
        [("a", 1.0), ("a", 0.0), ("a", 0.0), ("a", 0.0), ("b", 1.0), ("b", 1.0), ("b", None)]
    )
    assert groups == {"a": [1.0, 0.0, 0.0, 0.0], "b": [1.0, 1.0]}
    assert pass_at_ks(groups) == {"1": 0.625, "2": 0.75}  # a: 1/4, 1/2; b: 1, 1
    assert pass_at_ks(groups, ks=[4]) == {"4": 1.0}  # only a has 4 attempts: 1 - 0 / 1
    assert pass_at_k(4, 1, 3) == pytest.approx(0.75)  # 1 - C(3,3)/C(4,3) = 1 - 1/4


def test_a_graded_reward_of_one_half_is_not_a_success() -> None:
    """One rule for graded rewards (token F1) in every count: above 0.5 succeeds."""
    assert succeeded(1.0) and succeeded(0.51) and not succeeded(0.5) and not succeeded(0.0)
    assert rates_by([("f1", 0.5), ("f1", 0.8)])["f1"] == Rate(scored=2, successes=1)
    assert pass_at_ks({"t": [0.5, 0.8]}) == {"1": 0.5, "2": 1.0}
