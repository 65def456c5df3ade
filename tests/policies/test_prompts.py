"""Prompt templates: registry, options, text generated from the action docs, history windows."""

from __future__ import annotations

import json

import pytest
from policy_builders import make_obs, make_step

from fakes.openai_server import message_text
from webdojo.action_docs import action_summary
from webdojo.actions import Click, CoordSpace, Press, Scroll, Stop
from webdojo.errors import ConfigError
from webdojo.models import ModelConfig, count_images
from webdojo.observation import AxTreeMode
from webdojo.parsing import ParseFormat
from webdojo.policies import OpenAIPolicy, make_policy
from webdojo.prompts import TEMPLATES, get_template
from webdojo.prompts.qwen import QWEN_ACTIONS, computer_use_tool


def test_registry_and_parse_formats():
    names = {"qwen", "webgym_memory", "browseragent", "funcall", "chat", "compact"}
    assert set(TEMPLATES) == names
    formats = {name: get_template(name).parse_format for name in TEMPLATES}
    assert formats == {"qwen": ParseFormat.QWEN, "webgym_memory": ParseFormat.QWEN,
                       "browseragent": ParseFormat.BROWSERAGENT, "funcall": ParseFormat.FUNCALL,
                       "chat": ParseFormat.FUNCALL,
                       "compact": ParseFormat.BROWSERAGENT}  # fmt: skip
    with pytest.raises(ConfigError):
        get_template("nope")
    with pytest.raises(ConfigError):
        get_template("qwen", max_images=-1)
    with pytest.raises(ConfigError):
        get_template("qwen", actions=("teleport",))


def test_a_template_name_can_carry_its_options():
    """``NAME:FIELD=VALUE,...``: values read as the fields' types; keyword options win; a
    field the template lacks, a value its type refuses or a pair without ``=`` is refused."""
    template = get_template("compact:objective=last, max_tree_lines=40,ground=false")
    assert (template.objective, template.max_tree_lines, template.ground) == ("last", 40, False)
    assert get_template("browseragent:axtree=full").axtree is AxTreeMode.FULL
    assert get_template("compact:max_tree_lines=40", max_tree_lines=12).max_tree_lines == 12
    for bad in ("compact:objective=middle", "compact:colour=red", "compact:ground", "x:y=1"):
        with pytest.raises(ConfigError, match="template"):
            get_template(bad)
    model = ModelConfig(base_url="http://127.0.0.1:9/v1", model="m")
    spec = "compact:objective=last"
    policy = make_policy("openai", model_config=model, template=spec, last_actions=1)
    assert isinstance(policy, OpenAIPolicy)
    assert (policy.template.objective, policy.template.last_actions) == ("last", 1)


def test_observation_options():
    qwen = get_template("qwen").observation_options()
    assert qwen.screenshot and qwen.axtree is AxTreeMode.NONE
    ba = get_template("browseragent").observation_options()
    assert not ba.screenshot and ba.axtree is AxTreeMode.VIEWPORT
    both = get_template("browseragent", screenshot=True, axtree="full").observation_options()
    assert both.screenshot and both.axtree is AxTreeMode.FULL


def test_action_text_comes_from_the_docstrings():
    for name in set(TEMPLATES) - {"compact"}:  # compact lists the commands by name only
        system = get_template(name).system_prompt()
        assert action_summary("go_back") in system, name
    tool = computer_use_tool(tuple(QWEN_ACTIONS))
    assert tool["parameters"]["properties"]["action"]["enum"] == list(QWEN_ACTIONS)
    assert action_summary("press") in tool["parameters"]["properties"]["action"]["description"]
    webgym = computer_use_tool(("left_click", "answer"))
    assert set(webgym["parameters"]["properties"]) == {"action", "coordinate", "text"}


def test_qwen_tool_declaration_is_valid_json():
    system = get_template("qwen").system_prompt()
    declared = system.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    tool = json.loads(declared)
    assert tool["name"] == "computer_use"
    assert tool["parameters"]["properties"]["coordinate"]["items"]["maximum"] == 1000


@pytest.mark.parametrize(("max_images", "n_images", "n_turns"), [(0, 0, 1), (1, 1, 1), (3, 3, 5)])
def test_image_window(task, max_images, n_images, n_turns):
    template = get_template("qwen", max_images=max_images)
    history = [make_step(i, "reply", Click(x=1, y=1, space=CoordSpace.NORM1000)) for i in range(6)]
    messages = template.build_messages(task, make_obs(), history, None)
    assert count_images(messages) == n_images
    assert len(messages) - 1 == n_turns  # system excluded
    first = message_text(messages[1])
    assert sum(line.startswith("Step ") for line in first.splitlines()) == 6 - max(
        max_images - 1, 0
    )


def test_long_histories_are_capped(task):
    template = get_template("browseragent", max_history_lines=5)
    history = [make_step(i, "reply", Scroll(direction="down")) for i in range(12)]
    text = message_text(template.build_messages(task, make_obs(), history, None)[1])
    assert "(7 earlier steps not shown)" in text
    assert "Step 12 on" in text and "Step 7 on" not in text


def test_actions_a_format_cannot_express_fall_back_to_the_generic_form(task):
    template = get_template("browseragent")
    history = [make_step(0, "x", Click(x=3, y=4)), make_step(1, "y", Press(keys="Enter"))]
    text = message_text(template.build_messages(task, make_obs(), history, None)[1])
    assert "click(x=3.0, y=4.0)" in text and "press [Enter]" in text


def test_memory_folding():
    ba = get_template("browseragent")
    history = [make_step(0, "", Stop(), "fact one"), make_step(1, "", Stop(), None),
               make_step(2, "", Stop(), "fact two"), make_step(3, "", Stop(), "fact one")]  # fmt: skip
    assert ba.fold_memory(history) == ["fact one", "fact two"]
    assert get_template("qwen").fold_memory(history) is None
    webgym = get_template("webgym_memory")
    steps = [make_step(0, "", Stop(), {"memory": "a loose note", "progress": {"x": "finished"}}),
             make_step(1, "", Stop(), {"memory": {"k": 1}, "intention": "x"})]  # fmt: skip
    assert webgym.fold_memory(steps) == {
        "memory": {"note 1": "a loose note", "k": 1},
        "progress": {"x": "finished"},
        "intention": "x",
    }


def test_downloads_are_told_to_the_model() -> None:
    from webdojo.errors import DownloadTooLarge
    from webdojo.observation import DownloadInfo
    from webdojo.prompts.base import notices

    refused = DownloadTooLarge("past the cap").info()
    got = [DownloadInfo(name="a.pdf", url="http://127.0.0.1:9/a", bytes=12)]
    got.append(DownloadInfo(name="b.iso", url="http://127.0.0.1:9/b", bytes=99, error=refused))
    lines = notices(make_obs().model_copy(update={"downloads": got}), None)
    assert lines == [
        "The page downloaded a file: 'a.pdf' (12 bytes)",
        "The page's download 'b.iso' was refused: [download_too_large] past the cap",
    ]
