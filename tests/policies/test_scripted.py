"""The scripted policy: target resolution, wrong solutions, stopping."""

from __future__ import annotations

import pytest
from policy_builders import AXTREE, make_obs, make_step, make_task

from webdojo.actions import Click, Scroll, Select, Stop, Type
from webdojo.errors import ConfigError
from webdojo.observation import Element
from webdojo.policies import ScriptedPolicy, make_policy
from webdojo.policies.scripted import MAX_LOOKS, find_target
from webdojo.prompts import get_template
from webdojo.tasks.schema import SolutionStep, Target


def steps(*raw: dict) -> list[SolutionStep]:
    return [SolutionStep.model_validate(r) for r in raw]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ({"html_id": "add-lamp"}, 4),
        ({"role": "button", "name": "Go"}, 3),
        ({"role": "button", "name": "add to  CART"}, 4),  # case and spaces do not matter
        ({"name": "Search products"}, 2),
        ({"role": "combobox"}, 5),
        ({"html_id": "missing"}, None),
        ({"role": "link", "name": "Go"}, None),  # right name, wrong role
    ],
)
def test_find_target(target, expected):
    found = find_target(Target(**target), make_obs().elements or [])
    assert (found.id if found else None) == expected


async def test_follows_the_solution_then_stops(task):
    policy = make_policy("scripted")
    assert policy.observation_options().elements is True
    first = await policy.act(task, make_obs(), [])
    assert first.action == Click(element=4) and first.error is None
    assert first.text == "click(element=4)"
    second = await policy.act(task, make_obs(), [make_step(0, first.text, first.action)])
    assert second.action == Stop()
    history = [make_step(i, "", Click(element=4)) for i in range(2)]
    assert (await policy.act(task, make_obs(), history)).action == Stop(answer="")


async def test_fields_besides_the_target_are_kept():
    task = make_task(solution=[
        {"type": "type", "target": {"role": "searchbox", "name": "search products"},
         "text": "brass lamp", "enter": True},
        {"type": "select", "target": {"name": "Size"}, "option": "Large"},
        {"type": "stop", "answer": "done"},
    ])  # fmt: skip
    policy = ScriptedPolicy(text_format="browseragent")
    history = []
    for i in range(3):
        decision = await policy.act(task, make_obs(), history)
        history.append(make_step(i, decision.text, decision.action))
    actions = [s.decision.action for s in history]
    assert actions == [Type(element=2, text="brass lamp", enter=True),
                       Select(element=5, option="Large"), Stop(answer="done")]  # fmt: skip
    assert history[0].decision.text == "```\ntype [2] [brass lamp] [1]\n```"


async def test_missing_target_is_a_decision_not_an_exception(task):
    policy = ScriptedPolicy()
    page_without_button = make_obs(elements=[e for e in make_obs().elements or [] if e.id != 4])
    decision = await policy.act(task, page_without_button, [])
    assert decision.action is None
    assert decision.error is not None and decision.error.code == "unknown_element"
    assert "#add-lamp" in decision.error.message
    # the same step is tried again once the element shows up
    history = [make_step(0, decision.text, None)]
    assert (await policy.act(task, make_obs(), history)).action == Click(element=4)


async def test_no_element_list_is_reported(task):
    decision = await ScriptedPolicy().act(task, make_obs(elements=None), [])
    assert decision.error is not None and "elements=True" in decision.error.message


async def test_wrong_solution(task):
    policy = make_policy("scripted", which="wrong", index=0)
    assert (await policy.act(task, make_obs(), [])).action == Click(element=1)
    assert (await ScriptedPolicy(wrong_index=0).act(task, make_obs(), [])).action == Click(
        element=1
    )
    with pytest.raises(ConfigError):
        await ScriptedPolicy(which="wrong", index=3).act(task, make_obs(), [])
    custom = ScriptedPolicy(solution_getter=lambda t: steps({"type": "go_back"}))
    assert (await custom.act(task, make_obs(), [])).action.type == "go_back"


async def test_invalid_solution_step_is_reported(task):
    bad = ScriptedPolicy(solution_getter=lambda t: steps({"type": "press", "keys": "Hyper+q"}))
    decision = await bad.act(task, make_obs(), [])
    assert decision.action is None and decision.error is not None
    assert decision.error.code == "bad_key"


async def test_a_teacher_observes_and_writes_like_its_template(task):
    template = get_template("browseragent")
    policy = ScriptedPolicy(template=template)
    options = policy.observation_options()
    assert options.axtree == template.axtree and options.elements is True
    assert options.screenshot == template.screenshot
    decision = await policy.act(task, make_obs(axtree=AXTREE + LAMP), [])
    # the reply is the template's own syntax, and reads back as the action taken
    assert decision.text == "```\nclick [4]\n```"
    assert template.parse(decision.text).action == decision.action == Click(element=4)


LAMP = "\n[4] button 'Add to cart'"


def _below_the_fold(y: float) -> list[Element]:
    """The fixture's elements with the lamp's button (id 4) at height ``y``."""
    return [
        e.model_copy(update={"box": e.box.model_copy(update={"y": y})}) if e.id == 4 else e
        for e in make_obs().elements or []
    ]


@pytest.mark.parametrize("name", ["compact", "browseragent"])
async def test_a_teacher_scrolls_to_an_element_its_model_would_not_see(task, name):
    """A demonstration must act on ids the model was shown: when the next element is not on
    the page as the template shows it, the teacher scrolls toward it first, and the scroll does
    not count as a solution step."""
    template = get_template(name)
    teacher = ScriptedPolicy(template=template)
    hidden = make_obs(axtree=AXTREE, elements=_below_the_fold(900.0))
    look = await teacher.act(task, hidden, [])
    assert look.action == Scroll(direction="down")
    assert template.parse(look.text).action == look.action
    history = [make_step(0, look.text, look.action)]
    act = await teacher.act(task, make_obs(axtree=AXTREE + LAMP), history)
    assert act.action == Click(element=4)
    history.append(make_step(1, act.text, act.action))
    assert (await teacher.act(task, make_obs(axtree=AXTREE + LAMP), history)).action == Stop()
    above = make_obs(axtree=AXTREE, elements=_below_the_fold(-300.0))
    assert (await teacher.act(task, above, [])).action == Scroll(direction="up")


async def test_a_teacher_acts_after_looking_in_vain(task):
    """A page that does not scroll: after MAX_LOOKS scrolls in a row the teacher acts anyway;
    without a template (no model to show) it never looks."""
    teacher = ScriptedPolicy(template=get_template("compact"))
    hidden = make_obs(axtree=AXTREE)
    history = [make_step(i, "scroll [down]", Scroll(direction="down")) for i in range(MAX_LOOKS)]
    assert (await teacher.act(task, hidden, history[:-1])).action == Scroll(direction="down")
    assert (await teacher.act(task, hidden, history)).action == Click(element=4)
    assert (await ScriptedPolicy().act(task, hidden, [])).action == Click(element=4)
    # an observation captured without a tree has nothing to judge by: no look
    assert (await teacher.act(task, make_obs(axtree=None), [])).action == Click(element=4)
    # two steps left (the click and the stop) and two allowed: no look would fit
    tight = task.model_copy(update={"step_cap": 2})
    assert (await teacher.act(tight, hidden, [])).action == Click(element=4)
    assert (await teacher.act(task.model_copy(update={"step_cap": 3}), hidden, [])).action == (
        Scroll(direction="down")
    )
