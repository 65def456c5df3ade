"""Qwen / WebGym specifics: axis order, scroll with a point, the memory prompt's fields."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webdojo.actions import ACTION_NAMES, Click, CoordSpace, Scroll, Type
from webdojo.errors import InvalidCoordinates, ParseError
from webdojo.parsing import parse, render
from webdojo.parsing.qwen_arguments import action_from_arguments


def tc(arguments: dict[str, Any]) -> str:
    call = json.dumps({"name": "computer_use", "arguments": arguments})
    return f"<tool_call>\n{call}\n</tool_call>"


# --- axes -----------------------------------------------------------------------------------


def test_coordinate_is_x_then_y() -> None:
    """[x, y] with x horizontal. Public WebGym code swaps the two in one of its parsers; an
    asymmetric point catches that."""
    action = parse(tc({"action": "left_click", "coordinate": [100, 900]}), "qwen").action
    assert isinstance(action, Click)
    assert (action.x, action.y) == (100, 900)
    typed = parse(tc({"action": "type", "coordinate": [20, 700], "text": "a"}), "qwen").action
    assert isinstance(typed, Type)
    assert (typed.x, typed.y) == (20, 700)


def test_render_keeps_x_first() -> None:
    text = render(Click(x=100, y=900, space=CoordSpace.NORM1000), "qwen")
    assert '"coordinate": [100, 900]' in text


def test_out_of_range_only_in_norm1000() -> None:
    with pytest.raises(InvalidCoordinates):
        parse(tc({"action": "left_click", "coordinate": [100, 1200]}), "qwen")
    pixel = parse(
        tc({"action": "left_click", "coordinate": [100, 1200]}),
        "qwen",
        coord_space=CoordSpace.PIXEL,
    ).action
    assert isinstance(pixel, Click) and pixel.space is CoordSpace.PIXEL


# --- scroll ---------------------------------------------------------------------------------


def test_scroll_with_coordinate_is_one_scroll_action() -> None:
    action = parse(
        tc({"action": "scroll", "direction": "up", "coordinate": [300, 400]}), "qwen"
    ).action
    assert isinstance(action, Scroll)
    assert action.model_dump()["type"] == "scroll"
    assert (action.direction, action.x, action.y) == ("up", 300, 400)
    assert action.space is CoordSpace.NORM1000
    assert "scroll_coords" not in ACTION_NAMES


def test_scroll_direction_wins_over_pixel_sign() -> None:
    action = parse(tc({"action": "scroll", "direction": "down", "pixels": 250}), "qwen").action
    assert action == Scroll(direction="down", amount=250)


# --- structured tool calls ------------------------------------------------------------------


def test_action_from_arguments_without_text() -> None:
    action = action_from_arguments({"action": "left_click", "coordinate": [1, 2]})
    assert action == Click(x=1, y=2, space=CoordSpace.NORM1000)


# --- memory prompt --------------------------------------------------------------------------

MEMORY_OUTPUT = """1) Memory: {"Price of product 1": "10.00",
  "Location of product 1": "Seattle"}
2) Progress: {"Go to amazon.com": "finished",
  "Search for price of product 2": "not finished"}
3) Intention: "Search for price of product 2"
4) Action: Type the second product's name into the search box.
<tool_call>
{"name": "computer_use", "arguments": {"action": "type", "coordinate": [500, 80], "text": "p2"}}
</tool_call>"""


def test_memory_fields_and_action_sentence() -> None:
    parsed = parse(MEMORY_OUTPUT, "qwen")
    assert parsed.memory == {
        "memory": {"Price of product 1": "10.00", "Location of product 1": "Seattle"},
        "progress": {
            "Go to amazon.com": "finished",
            "Search for price of product 2": "not finished",
        },
        "intention": "Search for price of product 2",
    }
    assert parsed.thought == "Type the second product's name into the search box."
    assert parsed.action == Type(x=500, y=80, space=CoordSpace.NORM1000, text="p2", enter=True)


@pytest.mark.parametrize(
    "label",
    [
        "Memory:",
        "1) Memory:",
        "1. Memory:",
        "**Memory**:",
        "**Memory:**",
        "### Memory:",
        "memory :",
    ],
)
def test_memory_label_styles(label: str) -> None:
    text = f'{label} {{"k": "v"}}\nAction: go back.\n' + tc({"action": "go_back"})
    parsed = parse(text, "qwen")
    assert parsed.memory == {"memory": {"k": "v"}}
    assert parsed.thought == "go back."


def test_memory_fenced_and_single_quoted() -> None:
    text = (
        "Memory:\n```json\n{'a': 'b', 'n': 1,}\n```\n"
        "Progress: {'step 1': 'finished'}\n"
        "Intention: step 2\n" + tc({"action": "go_back"})
    )
    parsed = parse(text, "qwen")
    assert parsed.memory == {
        "memory": {"a": "b", "n": 1},
        "progress": {"step 1": "finished"},
        "intention": "step 2",
    }


def test_malformed_memory_is_kept_raw_and_the_action_survives() -> None:
    text = (
        'Memory: {"price": "10.00", "unclosed\n'
        'Progress: {"a": finished}\n'
        "Action: Click the button.\n" + tc({"action": "left_click", "coordinate": [1, 2]})
    )
    parsed = parse(text, "qwen")
    assert parsed.memory == {
        "memory": '{"price": "10.00", "unclosed',
        "progress": '{"a": finished}',
    }
    assert parsed.action == Click(x=1, y=2, space=CoordSpace.NORM1000)


def test_memory_with_nested_braces_and_trailing_comment() -> None:
    text = 'Memory: {"facts": {"a": [1, {"b": "}"}]}} (appended this step)\n' + tc(
        {"action": "go_back"}
    )
    assert parse(text, "qwen").memory == {"memory": {"facts": {"a": [1, {"b": "}"}]}}}


def test_no_memory_fields() -> None:
    plain = parse(tc({"action": "go_back"}), "qwen")
    assert plain.memory is None and plain.thought is None
    prose = parse("I should go back.\n" + tc({"action": "go_back"}), "qwen")
    assert prose.memory is None and prose.thought == "I should go back."


def test_think_block_is_the_thought_without_action_sentence() -> None:
    parsed = parse("<think>\nThe form is done.\n</think>\n" + tc({"action": "go_back"}), "qwen")
    assert parsed.thought == "The form is done."


def test_action_sentence_preferred_over_think() -> None:
    text = "<think>long</think>\nAction: Go back.\n" + tc({"action": "go_back"})
    assert parse(text, "qwen").thought == "Go back."


def test_two_calls_message_says_one() -> None:
    with pytest.raises(ParseError, match="exactly one"):
        parse(tc({"action": "go_back"}) + tc({"action": "go_back"}), "qwen")
