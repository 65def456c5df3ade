"""The openai policy against the fake endpoint, for every template."""

from __future__ import annotations

import dataclasses
import json

import pytest
from policy_builders import make_obs, make_step

from fakes.openai_server import Reply, image_urls, message_text, unused_port
from webdojo.actions import Click, CoordSpace, Stop, Type
from webdojo.errors import ConfigError, ModelError, ModelTimeout
from webdojo.models import ModelConfig, image_data_url
from webdojo.observation import AxTreeMode, ErrorInfo
from webdojo.policies import POLICY_NAMES, OpenAIPolicy, Policy, make_policy

QWEN_CLICK = (
    "Action: Click the search box.\n"
    '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", '
    '"coordinate": [500, 250]}}\n</tool_call>'
)


def history(n: int, text: str = QWEN_CLICK, memory=None):
    return [make_step(i, text, Click(x=500, y=250, space=CoordSpace.NORM1000), memory)
            for i in range(n)]  # fmt: skip


def data_url(obs) -> str:
    return image_data_url(obs.screenshot, "jpeg")


async def test_qwen_sends_system_prompt_and_last_k_images(fake_openai, fake_model_config, task):
    fake_openai.push(QWEN_CLICK)
    past = history(5)
    current = make_obs(shade=200)
    policy = make_policy("openai", model_config=fake_model_config, template="qwen", max_images=3)
    decision = await policy.act(task, current, past)
    await policy.aclose()

    assert decision.action == Click(x=500, y=250, space=CoordSpace.NORM1000)
    assert decision.error is None and decision.text == QWEN_CLICK
    assert decision.usage["total_tokens"] > 0 and decision.latency_s > 0
    body = fake_openai.last_request
    messages = body["messages"]
    assert messages[0]["role"] == "system" and "computer_use" in messages[0]["content"]
    assert "<tool_call>" in messages[0]["content"]
    # the current screenshot and the last two past ones, in order, as data URLs
    expected = [data_url(s.observation) for s in past[-2:]] + [data_url(current)]
    assert image_urls(body) == expected
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "user", "assistant", "user"]
    first = message_text(messages[1])
    assert task.instruction in first
    assert "Step 1 on" in first and "Step 3 on" in first and "Step 4 on" not in first
    assert '{"action": "left_click", "coordinate": [500, 250]}' in first  # qwen's own syntax


async def test_qwen_first_step_and_errors_are_shown(fake_openai, fake_model_config, task):
    fake_openai.push(QWEN_CLICK, QWEN_CLICK)
    policy = OpenAIPolicy(fake_model_config, "qwen")
    await policy.act(task, make_obs(), [])
    assert len(image_urls(fake_openai.last_request)) == 1
    error = ErrorInfo(code="action_failed", fault="env", message="the element is detached")
    await policy.act(task, make_obs(shade=90, last_error=error), history(1))
    last_user = message_text(fake_openai.last_request["messages"][-1])
    assert "action_failed" in last_user and "detached" in last_user
    await policy.aclose()


async def test_webgym_memory_is_carried_forward(fake_openai, fake_model_config, task):
    reply = (
        'Memory: {"Lamp price": "$20"}\n'
        'Progress: {"Find the lamp": "finished", "Add it to the cart": "not finished"}\n'
        'Intention: "Add it to the cart"\n'
        "Action: Click the add-to-cart button.\n"
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        '"coordinate": [100, 900]}}</tool_call>'
    )
    fake_openai.push(reply)
    past = [
        make_step(0, "...", Click(x=1, y=1, space=CoordSpace.NORM1000),
                  {"memory": {"Store": "Lamps & Co"}, "progress": {"Find the lamp": "not finished"}}),
        make_step(1, "...", Click(x=2, y=2, space=CoordSpace.NORM1000),
                  {"memory": {"Store": "CHANGED", "Lamp color": "brass"}}),
    ]  # fmt: skip
    policy = make_policy("openai", model_config=fake_model_config, template="webgym_memory")
    decision = await policy.act(task, make_obs(), past)
    await policy.aclose()

    system = fake_openai.last_request["messages"][0]["content"]
    assert "Memory" in system and "Progress" in system and "Intention" in system
    last_user = message_text(fake_openai.last_request["messages"][-1])
    carried = json.loads(last_user.split("Memory so far (keep every entry): ")[1].split("\n")[0])
    assert carried == {"Store": "Lamps & Co", "Lamp color": "brass"}  # append-only
    assert decision.action == Click(x=100, y=900, space=CoordSpace.NORM1000)
    assert decision.memory["memory"] == {"Lamp price": "$20"}
    assert decision.memory["intention"] == "Add it to the cart"
    folded = policy.template.fold_memory([*past, dataclasses.replace(past[0], decision=decision)])
    assert folded["memory"]["Lamp price"] == "$20"
    assert folded["progress"]["Add it to the cart"] == "not finished"


async def test_browseragent_text_only_with_conclusions(fake_openai, fake_model_config, task):
    reply = (
        "<think>The search box is [2]. <conclusion>The shop sells brass lamps.</conclusion>"
        "</think>\n```type [2] [brass desk lamp] [1]```"
    )
    fake_openai.push(reply)
    past = [
        make_step(0, "...", Click(element=1), "The home page lists lamps."),
        make_step(1, "...", None, None),
    ]
    policy = make_policy("openai", model_config=fake_model_config, template="browseragent")
    assert policy.observation_options().axtree is AxTreeMode.VIEWPORT
    assert policy.observation_options().screenshot is False
    decision = await policy.act(task, make_obs(screenshot=False), past)
    await policy.aclose()

    body = fake_openai.last_request
    assert image_urls(body) == []
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    user = message_text(body["messages"][1])
    assert "[2] searchbox 'Search products'" in user
    assert "- The home page lists lamps." in user
    assert "click [1]" in user and "(no usable action)" in user
    assert decision.action == Type(element=2, text="brass desk lamp", enter=True)
    assert decision.memory == "The shop sells brass lamps."


async def test_browseragent_can_add_the_screenshot(fake_openai, fake_model_config, task):
    fake_openai.push("```stop [done]```")
    policy = make_policy("openai", model_config=fake_model_config, template="browseragent",
                         screenshot=True)  # fmt: skip
    assert policy.observation_options().screenshot is True
    decision = await policy.act(task, make_obs(shade=33), history(2))
    await policy.aclose()
    assert image_urls(fake_openai.last_request) == [data_url(make_obs(shade=33))]
    assert decision.action == Stop(answer="done")


async def test_funcall_template(fake_openai, fake_model_config, task):
    fake_openai.push("The Go button submits the search.\nclick(element=3)")
    policy = make_policy("openai", model_config=fake_model_config, template="funcall")
    decision = await policy.act(task, make_obs(), [])
    await policy.aclose()
    body = fake_openai.last_request
    assert "click(element, x, y)" in body["messages"][0]["content"]
    assert "[3] button 'Go'" in message_text(body["messages"][-1])
    assert len(image_urls(body)) == 1
    assert decision.action == Click(element=3)


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("I think I should click the button.", "parse_error"),
        ('<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
         '"coordinate": [5000, 10]}}</tool_call>', "invalid_coordinates"),
        ('<tool_call>{"name": "computer_use", "arguments": {"action": "fly"}}</tool_call>',
         "invalid_action"),
        ("", "parse_error"),  # a model that says nothing has failed, the endpoint has not
        ("  \n", "parse_error"),
    ],
)  # fmt: skip
async def test_unusable_reply_becomes_a_decision(fake_openai, fake_model_config, task, reply, code):
    fake_openai.push(reply)
    async with ModelConfigPolicy(fake_model_config) as policy:
        decision = await policy.act(task, make_obs(), [])
    assert decision.action is None
    assert decision.error is not None and decision.error.code == code
    assert decision.error.fault == "agent"
    assert decision.text == reply and decision.usage


async def test_server_500_then_success(fake_openai, fake_model_config, task):
    fake_openai.push(Reply(status=500), QWEN_CLICK)
    async with ModelConfigPolicy(fake_model_config) as policy:
        decision = await policy.act(task, make_obs(), [])
    assert decision.action is not None and len(fake_openai.requests) == 2


async def test_the_sampling_seed_follows_the_episode_and_step(fake_openai, fake_model_config, task):
    fake_openai.push(QWEN_CLICK, QWEN_CLICK, QWEN_CLICK)
    async with ModelConfigPolicy(fake_model_config) as policy:
        for seed in (100, 200):
            await policy.act(task, make_obs(), [], seed=seed)
        await policy.act(task, make_obs(), [make_step(0, "x", None)], seed=100)
    assert [r["seed"] for r in fake_openai.requests] == [100, 200, 101]


async def test_hang_raises_model_timeout(fake_openai, fake_model_config, task):
    config = dataclasses.replace(fake_model_config, timeout_s=0.3, max_retries=0)
    fake_openai.push(Reply(delay_s=5))
    async with ModelConfigPolicy(config) as policy:
        with pytest.raises(ModelTimeout):
            await policy.act(task, make_obs(), [])


async def test_connection_refused_raises_model_error(task):
    config = ModelConfig(base_url=f"http://127.0.0.1:{unused_port()}/v1", model="m",
                         max_retries=0)  # fmt: skip
    async with ModelConfigPolicy(config) as policy:
        with pytest.raises(ModelError):
            await policy.act(task, make_obs(), [])


def test_make_policy_registry(fake_model_config, monkeypatch):
    for var in ("WEBDOJO_MODEL_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    assert make_policy("scripted").name == "scripted"
    assert make_policy("random", seed=3).name == "random"
    assert all(isinstance(make_policy(n, model_config=fake_model_config), Policy)
               for n in POLICY_NAMES)  # fmt: skip
    policy = make_policy("openai", model_config=fake_model_config, template="qwen", max_images=1,
                         sampling={"temperature": 1.0})  # fmt: skip
    assert isinstance(policy, OpenAIPolicy)
    assert policy.template.max_images == 1 and policy.sampling == {"temperature": 1.0}
    with pytest.raises(ConfigError, match="model endpoint"):
        make_policy("openai")
    with pytest.raises(ConfigError, match="unknown policy"):
        make_policy("genius")
    with pytest.raises(ConfigError, match="unknown prompt template"):
        make_policy("openai", model_config=fake_model_config, template="nope")


class ModelConfigPolicy:
    """An OpenAIPolicy (qwen template) closed on exit."""

    def __init__(self, config: ModelConfig) -> None:
        self.policy = OpenAIPolicy(config, "qwen")

    async def __aenter__(self) -> OpenAIPolicy:
        return self.policy

    async def __aexit__(self, *exc: object) -> None:
        await self.policy.aclose()


async def test_compact_acts_on_the_element_its_reply_names(fake_openai, fake_model_config, task):
    """The policy reads a reply against the page it answers: the line in ``<think>`` names the
    element, whatever id the command wrote after it."""
    reply = "<think>searchbox 'Search products' [5]</think>type [5] [lamp] [1]"
    fake_openai.push(reply)
    policy = make_policy("openai", model_config=fake_model_config, template="compact")
    decision = await policy.act(task, make_obs(screenshot=False), [])
    await policy.aclose()
    assert "searchbox 'Search products' [2]" in message_text(
        fake_openai.last_request["messages"][1]
    )
    assert decision.text == reply
    assert decision.action == Type(element=2, text="lamp", enter=True)
