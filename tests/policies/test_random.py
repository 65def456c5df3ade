"""The random policy: reproducible with a seed, only valid actions."""

from __future__ import annotations

import random

from policy_builders import make_obs, make_step, make_task

from webdojo.actions import Click, GoBack, Scroll, Select, Stop, Type
from webdojo.policies import RandomPolicy, make_policy


async def run(policy, task, n=25):
    history = []
    for i in range(n):
        decision = await policy.act(task, make_obs(), history)
        history.append(make_step(i, decision.text, decision.action))
    return [s.decision.action for s in history]


async def test_same_seed_same_actions(task):
    first = await run(make_policy("random", seed=7), task)
    again = await run(make_policy("random", seed=7), task)
    assert first == again
    assert first != await run(make_policy("random", seed=8), task)
    assert first != await run(make_policy("random", seed=7), make_task(id="other"))


async def test_actions_are_valid_for_the_page(task):
    policy = RandomPolicy(seed=1)
    assert policy.observation_options().elements is True
    actions = await run(policy, task, n=200)
    ids = {e.id for e in make_obs().elements or []}
    for action in actions:
        assert getattr(action, "element", None) in ids | {None}
    kinds = {type(a) for a in actions}
    assert kinds == {Click, Type, Select, Scroll, GoBack, Stop}
    assert {a.element for a in actions if isinstance(a, Type)} == {2}  # the searchbox only
    assert {a.option for a in actions if isinstance(a, Select)} == {"Small", "Large"}
    assert all(a.answer == "" for a in actions if isinstance(a, Stop))


async def test_candidates_without_elements():
    policy = RandomPolicy()
    candidates = policy.candidates(make_obs(elements=[]), random.Random(0))
    assert candidates == [Scroll(direction="up"), Scroll(direction="down"), GoBack(), Stop()]
