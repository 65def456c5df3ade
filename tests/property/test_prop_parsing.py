"""Properties of the model-output parsers (``webdojo.parsing``).

* any text, in any format and coordinate space, parses to an action or raises a ``ParseError``
  or an ``InvalidActionError`` (both ``AgentError``): never anything else;
* an action a format can write parses back to itself (``parse(render(a, f), f).action == a``).
"""

from __future__ import annotations

from _prop_strategies import actions
from hypothesis import given
from hypothesis import strategies as st

from webdojo.actions import Action, CoordSpace
from webdojo.errors import AgentError
from webdojo.parsing import ParseFormat, default_coord_space, parse, render

FORMATS = st.sampled_from(ParseFormat)
SPACES = st.sampled_from([None, CoordSpace.PIXEL, CoordSpace.NORM1000])
# openings and endings that lead the parsers past their first checks
OPENINGS = [
    "", "<tool_call>\n", '<tool_call>\n{"name": "computer_use", "arguments": {"action": "',
    '{"name": "computer_use", "arguments": ', "```\n", "```click [", "```type [3] [",
    "<think>", "</think>", "<conclusion>", "click(", "type(\"", "scroll(", "stop(",
    "Memory: x\nProgress: y\nIntention: z\nAction: ", "left_click", "goto(url=",
]  # fmt: skip
ENDINGS = ["", ")", '"}}', '"}}\n</tool_call>', "]\n```", "</think>", "\n```", "])"]
TOKENS = st.sampled_from(
    ['"', "'", "[", "]", "(", ")", "{", "}", ",", ":", "=", "\\", "\n", "`", " ", "1e999",
     "-1", "NaN", "1000.5", "0", "412", "true", "null", "element=", "x=", "coordinate",
     "</tool_call>", "<tool_call>", "```", "Enter", "https://a.b"]
)  # fmt: skip
model_text = st.one_of(
    st.text(max_size=200),
    st.builds(
        lambda a, middle, b: a + "".join(middle) + b,
        st.sampled_from(OPENINGS),
        st.lists(TOKENS | st.text(max_size=5), max_size=25),
        st.sampled_from(ENDINGS),
    ),
)


@given(model_text, FORMATS, SPACES)
def test_any_text_parses_or_raises_an_agent_error(
    text: str, fmt: ParseFormat, space: CoordSpace | None
) -> None:
    try:
        parsed = parse(text, fmt, coord_space=space)
    except AgentError as exc:
        assert str(exc)  # a message to show the model
        return
    assert parsed.raw == text
    assert parsed.action.model_dump()  # a real action


@st.composite
def rendered(draw: st.DrawFn) -> tuple[Action, ParseFormat, CoordSpace]:
    fmt = draw(FORMATS)
    space = draw(st.sampled_from(CoordSpace)) if fmt is not ParseFormat.BROWSERAGENT else None
    space = space or default_coord_space(fmt) or CoordSpace.PIXEL
    return draw(actions(fmt, space)), fmt, space


@given(rendered())
def test_a_rendered_action_parses_back(case: tuple[Action, ParseFormat, CoordSpace]) -> None:
    action, fmt, space = case
    try:
        text = render(action, fmt, coord_space=space)
    except ValueError as exc:  # browseragent: text that would read as another command
        assert fmt is ParseFormat.BROWSERAGENT and "cannot carry" in str(exc)
        return
    assert parse(text, fmt, coord_space=space).action == action, text
