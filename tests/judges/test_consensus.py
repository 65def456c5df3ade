"""The consensus vote: BrowserAgent's 2 of 3, unanimity, and what a split vote becomes."""

from __future__ import annotations

import pytest

from webdojo.judges.consensus import decide, sum_usage
from webdojo.store.verdicts import JudgeUsage, Label

S, F, W, B, E = "success", "failure", "website_failure", "blocked", "infra_error"


@pytest.mark.parametrize(
    ("labels", "majority", "unanimous"),
    [
        ([S, S, S], S, S),
        ([S, S, F], S, F),  # 2 of 3
        ([S, F, F], F, F),
        ([S, S, E], S, E),  # unanimity: one member could not judge, so no verdict was reached
        ([S, E, E], E, E),  # too few votes either way: never a 0 the vote did not reach
        ([S, F, E], F, F),
        ([W, W, S], W, W),
        ([W, F, S], F, F),  # a tie among the rest goes to failure
        ([B, B, F], B, B),
        ([E, E, E], E, E),
        ([S, S, F, F], F, F),  # 2 of 4 is not a majority
    ],
)
def test_votes(labels: list[Label], majority: Label, unanimous: Label) -> None:
    assert decide(labels, "majority") == majority
    assert decide(labels, "unanimous") == unanimous


def test_usage_adds_up_and_cost_stays_unknown_without_prices() -> None:
    total = sum_usage([JudgeUsage(calls=2, prompt_tokens=10), JudgeUsage(calls=1, cached=3)])
    assert (total.calls, total.cached, total.prompt_tokens, total.cost) == (3, 3, 10, None)
    priced = sum_usage([JudgeUsage(cost=0.5), JudgeUsage(cost=0.25), JudgeUsage()])
    assert priced.cost == 0.75
