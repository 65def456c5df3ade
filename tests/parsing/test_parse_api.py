"""The public API and what each format puts in ``thought`` and ``memory``."""

from __future__ import annotations

import pytest

from webdojo.actions import Click, CoordSpace, Stop, Type
from webdojo.errors import InvalidActionError, ParseError
from webdojo.parsing import (
    Parsed,
    ParseFormat,
    default_coord_space,
    format_hint,
    parse,
    render,
)


def test_format_names() -> None:
    assert [f.value for f in ParseFormat] == ["qwen", "browseragent", "funcall"]
    assert parse("click(1, 2)", ParseFormat.FUNCALL) == parse("click(1, 2)", "funcall")
    with pytest.raises(ValueError):
        parse("click(1, 2)", "xml")


def test_default_coordinate_spaces() -> None:
    assert default_coord_space("qwen") is CoordSpace.NORM1000
    assert default_coord_space("funcall") is CoordSpace.PIXEL
    assert default_coord_space("browseragent") is None
    funcall = parse("click(1, 2)", "funcall", coord_space=CoordSpace.NORM1000).action
    assert funcall == Click(x=1, y=2, space=CoordSpace.NORM1000)


def test_parsed_is_frozen() -> None:
    parsed = parse("stop('x')", "funcall")
    assert isinstance(parsed, Parsed)
    with pytest.raises(AttributeError):
        parsed.raw = "y"  # type: ignore[misc]


@pytest.mark.parametrize("fmt", ["qwen", "browseragent", "funcall"])
def test_every_error_names_the_expected_format(fmt: str) -> None:
    hint = format_hint(fmt)
    assert hint.startswith("Expected format")
    for text in ["", "nothing useful here", "<think>only thinking</think>"]:
        with pytest.raises(ParseError) as info:
            parse(text, fmt)
        assert info.value.message.endswith(hint)
        assert info.value.to_dict()["fault"] == "agent"


def test_invalid_action_errors_keep_their_code_and_add_the_format() -> None:
    with pytest.raises(InvalidActionError) as info:
        parse('goto("javascript:alert(1)")', "funcall")
    assert info.value.code == "bad_url"
    assert info.value.message.endswith(format_hint("funcall"))


def test_none_content_is_an_empty_output() -> None:
    with pytest.raises(ParseError, match="empty"):
        parse(None, "funcall")  # type: ignore[arg-type]


# --- thought and memory per format ----------------------------------------------------------


def test_browseragent_thought_and_conclusion_inside_think() -> None:
    text = (
        "<think>\nThe page says Edward IV.\n<conclusion>Father: Edward IV.</conclusion>\n</think>"
        "\n```stop [Edward IV]```"
    )
    parsed = parse(text, "browseragent")
    assert parsed.thought == "The page says Edward IV."
    assert parsed.memory == "Father: Edward IV."
    assert parsed.action == Stop(answer="Edward IV")


def test_browseragent_conclusion_after_think_and_several_blocks() -> None:
    text = (
        "<think>t</think>\n<conclusion>one</conclusion>\n<conclusion>two</conclusion>\n"
        "```go_back```"
    )
    assert parse(text, "browseragent").memory == "one\ntwo"


def test_browseragent_missing_think_gives_no_thought() -> None:
    parsed = parse("```click [4]```", "browseragent")
    assert parsed.thought is None and parsed.memory is None


def test_browseragent_fence_in_conclusion_is_not_the_action() -> None:
    text = "<think>t</think><conclusion>I tried ```click [1]```.</conclusion>\n```click [2]```"
    assert parse(text, "browseragent").action == Click(element=2)


def test_browseragent_template_opened_think() -> None:
    parsed = parse("I should type.\n</think>\n```type [3] [abc] [0]```", "browseragent")
    assert parsed.thought == "I should type."
    assert parsed.action == Type(element=3, text="abc", enter=False)


def test_funcall_thought_is_the_prose_before_the_call() -> None:
    parsed = parse("The search box is at the top.\n```python\nclick(10, 20)\n```", "funcall")
    assert parsed.thought == "The search box is at the top."
    assert parsed.memory is None
    assert parse("<think>hm</think> click(1, 1)", "funcall").thought == "hm"
    assert parse("click(1, 1)", "funcall").thought is None


def test_qwen_memory_is_none_without_fields() -> None:
    text = render(Click(x=1, y=2, space=CoordSpace.NORM1000), "qwen")
    assert parse(text, "qwen").memory is None
