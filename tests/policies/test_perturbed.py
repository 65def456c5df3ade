"""The perturbed policy: seeded plans, stopping early, wrong answers its task's checks reject,
and (in real Chromium) episodes the built-in verifiers really fail."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from policy_builders import make_obs, make_step, make_task

from webdojo.actions import Click, Stop
from webdojo.errors import ConfigError
from webdojo.policies import PerturbedPolicy, make_policy
from webdojo.policies.perturbed import mangle, rejected, split_solution
from webdojo.tasks.schema import Task

ANSWER_TASK = {
    "verifier": {"checks": [{"kind": "answer", "match": "contains", "value": "$39"}]},
    "solution": [
        {"type": "click", "target": {"html_id": "add-lamp"}},
        {"type": "click", "target": {"role": "link", "name": "Home"}},
        {"type": "click", "target": {"html_id": "q"}},
        {"type": "stop", "answer": "It costs $39."},
    ],
}
STORAGE_TASK = {
    "verifier": {"checks": [{"kind": "storage", "key": "shop.cart", "op": "len_eq", "value": 1}]},
    "solution": [*ANSWER_TASK["solution"][:3], {"type": "stop"}],
}


async def replay(policy: PerturbedPolicy, task: Task, seed: int = 0) -> list:
    """The actions of one episode against a page that always shows the same elements."""
    history = []
    for index in range(10):
        decision = await policy.act(task, make_obs(), history, seed=seed)
        history.append(make_step(index, decision.text, decision.action))
        if isinstance(decision.action, Stop):
            break
    return [s.decision.action for s in history]


def test_plans_are_seeded_and_vary_between_episodes() -> None:
    task = make_task(**ANSWER_TASK)
    policy = PerturbedPolicy(seed=3)
    plans = [policy.plan(task, episode) for episode in range(40)]
    assert plans == [PerturbedPolicy(seed=3).plan(task, episode) for episode in range(40)]
    assert Counter(p.mode for p in plans).keys() == {"stop_early", "wrong_answer"}
    assert {p.keep for p in plans if p.mode == "stop_early"} == {0, 1, 2}  # never all 3
    assert {p.answer for p in plans if p.mode == "stop_early"} >= {""}  # sometimes no answer
    assert plans != [PerturbedPolicy(seed=4).plan(task, episode) for episode in range(40)]


async def test_stop_early_replays_a_prefix_then_stops() -> None:
    task = make_task(**STORAGE_TASK)
    policy = PerturbedPolicy(seed=0, modes=["stop_early"])
    for episode in range(5):
        plan = policy.plan(task, episode)
        actions = await replay(policy, task, episode)
        assert plan.keep < 3 and actions[-1] == Stop(answer="")  # no answer check: no answer
        assert actions[:-1] == [Click(element=4), Click(element=1), Click(element=2)][: plan.keep]


async def test_wrong_answer_replays_everything_and_the_checks_reject_the_answer() -> None:
    wrong = [[{"type": "stop", "answer": "It costs $45."}]]
    task = make_task(**ANSWER_TASK, wrong_solutions=wrong)
    policy = make_policy("perturbed", seed=1, modes=["wrong_answer"])
    actions = await replay(policy, task)  # type: ignore[arg-type]
    clicks = [Click(element=4), Click(element=1), Click(element=2)]
    assert actions == [*clicks, Stop(answer="It costs $45.")]
    # no wrong solutions: the right answer mangled, which the checks reject
    task = make_task(**ANSWER_TASK, wrong_solutions=[])
    assert (await replay(PerturbedPolicy(modes=["wrong_answer"]), task))[-1] == Stop(
        answer="It costs $40."
    )
    assert rejected(task, "It costs $40.") and not rejected(task, "It costs $39.")


def test_a_wrong_solution_whose_answer_is_right_is_not_used() -> None:
    wrong = [[{"type": "stop", "answer": "about $39 I think"}]]  # passes "contains $39"
    task = make_task(**ANSWER_TASK, wrong_solutions=wrong)
    plan = PerturbedPolicy(modes=["wrong_answer"]).plan(task)
    assert plan.answer == "It costs $40."


def test_tasks_whose_verifier_ignores_the_answer_only_stop_early() -> None:
    task = make_task(**STORAGE_TASK)
    policy = PerturbedPolicy(seed=0)
    assert {policy.plan(task, e).mode for e in range(30)} == {"stop_early"}
    # asked for wrong answers only, such a task still gets a perturbation that matters
    assert PerturbedPolicy(modes=["wrong_answer"]).plan(task).mode == "stop_early"


def test_mangle_and_split_solution() -> None:
    assert mangle("Room 209, $1,399") == "Room 310, $2,400"
    assert mangle("Maud Kettle") == "duaM eltteK"
    task = make_task(**ANSWER_TASK)
    actions, answer = split_solution(task.solution)
    assert len(actions) == 3 and answer == "It costs $39."


def test_bad_modes_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="perturbed policy modes"):
        PerturbedPolicy(modes=["stop_late"])
    with pytest.raises(ConfigError):
        PerturbedPolicy(modes=[])


BROWSER_TASKS = ("shop.price-pendant", "admin.page4-oldest-joined", "forms.report-graffiti")


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["stop_early", "wrong_answer"])
async def test_perturbed_episodes_fail_the_builtin_verifiers(tmp_path: Path, mode: str) -> None:
    """Real Chromium: the scripted policy passes these tasks; the perturbed one never does."""
    from webdojo.rollout.run import RunConfig, run_job
    from webdojo.tasks.loader import load_spec

    full = load_spec("builtin")
    chosen = [t for t in full.tasks if t.id in BROWSER_TASKS]
    task_set = type(full)(tasks=chosen, sites=full.sites)
    config = RunConfig(policy="perturbed", out=str(tmp_path / mode), concurrency=3)
    policy = PerturbedPolicy(seed=0, modes=[mode])
    records = await run_job(config, task_set, policy)
    assert len(records) == 3 and all(r.fault is None for r in records)
    assert [r.reward for r in records] == [0.0, 0.0, 0.0], [r.verifier for r in records]
    by_task = {r.task_id: r for r in records}
    if mode == "wrong_answer":  # the whole solution ran: only the answer is wrong
        assert by_task["shop.price-pendant"].answer not in (None, "", "$64.00")
        assert any(
            "fail: answer" in reason for reason in by_task["shop.price-pendant"].verifier.reasons
        )  # type: ignore[union-attr]
