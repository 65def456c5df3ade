"""The programmatic judge: built-in verifiers re-run on real stored runs (it must agree with the
rewards the rollout stored), and what it refuses to judge."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judges.rule_runs import clicks, write_episode
from store import record_builders as rb
from webdojo.judges.base import JudgeOptions
from webdojo.judges.programmatic import ProgrammaticJudge
from webdojo.judges.runner import judge_run
from webdojo.judges.spec import build_judge
from webdojo.observation import FinalState
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.run_reader import read_episodes
from webdojo.store.verdicts import read_verdicts
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task

CART = "http://127.0.0.1/shop/cart.html"


def shop_task(**changes: object) -> Task:
    return Task.model_validate(
        {
            "id": "shop.cart-lamp",
            "instruction": "Add the brass desk lamp to your cart.",
            "website": "shop",
            "start_url": "index.html",
            "verifier": {
                "checks": [
                    {"kind": "storage", "key": "shop.cart", "path": "0.sku", "value": "lamp-brass"},
                    {"kind": "url", "op": "contains", "value": "cart"},
                ]
            },
            **changes,
        }
    )


def final(storage: object, url: str = CART) -> FinalState:
    return FinalState(url=url, title="Cart", storage=storage, text="Your cart", answer=None)


# --- real runs of the built-in tasks -----------------------------------------------------------


def _run(root: Path, which: str) -> Path:
    config = RunConfig(tasks="builtin:login", limit=3, out=str(root))
    policy = make_policy("scripted", which=which)
    asyncio.run(run_job(config, load_spec(config.tasks), policy))
    return root


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two real runs of three login tasks: reference solutions, then wrong solutions."""
    base = tmp_path_factory.mktemp("programmatic")
    return [_run(base / "right", "solution"), _run(base / "wrong", "wrong")]


@pytest.mark.browser
async def test_the_judge_agrees_with_every_stored_reward(runs: list[Path]) -> None:
    rewards = []
    for run in runs:
        report = await judge_run(run, "programmatic", JudgeOptions())
        assert report.to_json()["model_calls"] == 0
        stored = read_episodes(run)
        verdicts = read_verdicts(run, "programmatic")
        assert set(verdicts) == set(stored) and len(stored) == 3
        for key, record in stored.items():
            verdict = verdicts[key]
            assert verdict.reward == record.reward, key
            assert record.verifier is not None
            assert [c.reason for c in verdict.criteria] == record.verifier.reasons
            assert all(
                c.kind == "verifier" and c.evidence == [record.steps] for c in verdict.criteria
            )
            rewards.append(verdict.reward)
    assert rewards == [1.0] * 3 + [0.0] * 3  # the wrong solutions really fail


# --- verdicts from stored final states ---------------------------------------------------------


async def test_each_check_is_a_criterion(tmp_path: Path) -> None:
    good = final({"shop.cart": [{"sku": "lamp-brass"}]})
    t = write_episode(tmp_path, shop_task(), clicks(CART), final_state=good)
    verdict = await ProgrammaticJudge().judge(t)
    assert (verdict.label, verdict.reward, verdict.judge) == ("success", 1.0, "programmatic")
    assert [c.passed for c in verdict.criteria] == [True, True]
    assert all(c.reason.startswith("ok: ") for c in verdict.criteria)


async def test_a_failing_check_fails_and_says_which(tmp_path: Path) -> None:
    wrong = final({"shop.cart": [{"sku": "lamp-steel"}]})
    t = write_episode(tmp_path, shop_task(), clicks(CART), final_state=wrong)
    verdict = await ProgrammaticJudge().judge(t)
    assert (verdict.label, verdict.reward) == ("failure", 0.0)
    first, second = verdict.criteria
    assert first.passed is False and first.reason.startswith("fail: ") and second.passed is True


async def test_a_verifier_and_rules_must_both_hold(tmp_path: Path) -> None:
    rules = [{"match": "url_included_match", "reference": "/checkout"}]
    task = shop_task(eval_rules=rules)
    good = final({"shop.cart": [{"sku": "lamp-brass"}]})
    t = write_episode(tmp_path, task, clicks(CART), final_state=good)
    verdict = await ProgrammaticJudge().judge(t)
    assert verdict.label == "failure"
    assert [(c.kind, c.passed) for c in verdict.criteria] == [
        ("verifier", True), ("verifier", True), ("rule", False),
    ]  # fmt: skip
    t = write_episode(tmp_path / "b", task, clicks(CART, "http://127.0.0.1/shop/checkout"),
                      final_url=CART, final_state=good)  # fmt: skip
    assert (await ProgrammaticJudge().judge(t)).label == "success"


@pytest.mark.parametrize(
    ("task", "episode", "why"),
    [
        (shop_task(), {"fault": "infra"}, "ended in a fault (infra: browser_closed)"),
        (shop_task(), {"final_state": None}, "stores no final state"),
        (shop_task(verifier=None), {}, "neither a programmatic verifier nor evaluation rules"),
    ],
)
async def test_what_cannot_be_judged_is_an_infra_error_that_names_it(
    tmp_path: Path, task: Task, episode: dict[str, object], why: str
) -> None:
    if episode.get("fault"):
        episode = {**episode, "error": rb.episode("a#0", None, fault="infra").error}
    t = write_episode(tmp_path, task, clicks(CART), **episode)
    verdict = await ProgrammaticJudge().judge(t)
    assert verdict.label == "infra_error" and verdict.reward is None
    assert verdict.error is not None and verdict.error.code == "trajectory_incomplete"
    assert why in verdict.error.message


async def test_a_task_gone_from_the_task_set_is_named(tmp_path: Path) -> None:
    t = write_episode(tmp_path, shop_task(), clicks(CART))
    verdict = await ProgrammaticJudge().judge(type(t)(t.run, t.record, t.steps, None))
    assert verdict.label == "infra_error"
    assert verdict.error is not None and "not in the run's task set" in verdict.error.message


def test_the_spec_builds_it() -> None:
    assert isinstance(build_judge("programmatic", JudgeOptions()), ProgrammaticJudge)
