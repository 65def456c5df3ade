"""A corpus of well-formed, malformed and edge-case model outputs for every format.

Each case is (format, text, expected) where expected is either the Action the text must parse
to or the stable error code it must raise. Extra keyword arguments for ``parse`` (such as a
coordinate space) go in a fourth element.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from webdojo.actions import (
    Action,
    Click,
    CloseTab,
    CoordSpace,
    DoubleClick,
    GoBack,
    GoForward,
    Goto,
    Hover,
    NewTab,
    Press,
    Scroll,
    Select,
    Stop,
    TabFocus,
    Type,
    Wait,
)
from webdojo.errors import AgentError
from webdojo.parsing import parse

N = CoordSpace.NORM1000
P = CoordSpace.PIXEL
CJK = "东京塔的高度是333米"
EMOJI_RTL = "Done ✅ 🎉 — התשובה היא מרחב"


def tc(arguments: dict[str, Any] | str, name: str = "computer_use") -> str:
    """A qwen tool call around ``arguments``."""
    call = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{call}\n</tool_call>"


def ba(command: str, think: str = "Reasoning.") -> str:
    """A browseragent output with ``command`` in a fence."""
    return f"<think>{think}</think>\n```\n{command}\n```"


Case = tuple[str, str, Action | str] | tuple[str, str, Action | str, dict[str, Any]]

QWEN: list[Case] = [
    # well-formed WebGym actions
    ("qwen", tc({"action": "left_click", "coordinate": [245, 312]}), Click(x=245, y=312, space=N)),
    (
        "qwen",
        '<tool_call>\n{"name": "computer use", "arguments": {"action": "left click", '
        '"coordinate": [245, 312]}}\n</tool_call>',
        Click(x=245, y=312, space=N),
    ),
    (
        "qwen",
        tc({"action": "type", "coordinate": [245, 312], "text": "Glasgow Queen Street"}),
        Type(x=245, y=312, space=N, text="Glasgow Queen Street", enter=True),
    ),
    (
        "qwen",
        tc({"action": "type", "coordinate": [5, 6], "text": "draft", "enter": False}),
        Type(x=5, y=6, space=N, text="draft", enter=False),
    ),
    ("qwen", tc({"action": "type", "text": "x"}), Type(text="x", enter=True)),
    (
        "qwen",
        tc({"action": "scroll", "direction": "down", "coordinate": [500, 700]}),
        Scroll(direction="down", x=500, y=700, space=N),
    ),
    ("qwen", tc({"action": "scroll", "pixels": -300}), Scroll(direction="down", amount=300)),
    ("qwen", tc({"action": "hscroll", "pixels": 200}), Scroll(direction="right", amount=200)),
    ("qwen", tc({"action": "wait", "time": 3}), Wait(seconds=3)),
    ("qwen", tc({"action": "wait", "time": 60}), Wait(seconds=10)),
    ("qwen", tc({"action": "go_back"}), GoBack()),
    ("qwen", tc({"action": "go back"}), GoBack()),
    (
        "qwen",
        tc({"action": "navigate", "url": "https://www.nationalrail.co.uk"}),
        Goto(url="https://www.nationalrail.co.uk"),
    ),
    ("qwen", tc({"action": "answer", "text": CJK}), Stop(answer=CJK)),
    ("qwen", tc({"action": "answer", "text": EMOJI_RTL}), Stop(answer=EMOJI_RTL)),
    ("qwen", tc({"action": "terminate", "status": "failure"}), Stop(answer="N/A")),
    ("qwen", tc({"action": "key", "keys": ["ctrl", "a"]}), Press(keys="Control+a")),
    ("qwen", tc({"action": "mouse_move", "coordinate": [1, 2]}), Hover(x=1, y=2, space=N)),
    (
        "qwen",
        tc({"action": "double_click", "coordinate": [0, 1000]}),
        DoubleClick(x=0, y=1000, space=N),
    ),
    # leniency
    (
        "qwen",
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        '"coordinate": [10, 20],},}</tool_call>',
        Click(x=10, y=20, space=N),
    ),
    (
        "qwen",
        'Action: click.\n<tool_call>\n{"name": "computer_use", "arguments": '
        '{"action": "left_click", "coordinate": [10, 20]}}',
        Click(x=10, y=20, space=N),
    ),
    (
        "qwen",
        '< tool_call >\n{"name": "computer_use", "arguments": {"action": "go_forward"}}\n'
        "</ tool_call >",
        GoForward(),
    ),
    (
        "qwen",
        '<tool_call>\n```json\n{"name": "computer_use", "arguments": {"action": "close_tab"}}\n'
        "```\n</tool_call>",
        CloseTab(),
    ),
    (
        "qwen",
        "<tool_call>{'name': 'computer_use', 'arguments': {'action': 'left_click', "
        "'coordinate': [3, 4]}}</tool_call>",
        Click(x=3, y=4, space=N),
    ),
    (
        "qwen",
        tc(json.dumps({"action": "left_click", "coordinate": [7, 8]})),
        Click(x=7, y=8, space=N),
    ),
    (
        "qwen",
        tc({"action": "type", "coordinate": [1, 1], "text": '{"a": {"b": [1, {}]}} }}'}),
        Type(x=1, y=1, space=N, text='{"a": {"b": [1, {}]}} }}', enter=True),
    ),
    (
        "qwen",
        tc({"action": "type", "coordinate": [1, 1], "text": "</tool_call> <tool_call>"}),
        Type(x=1, y=1, space=N, text="</tool_call> <tool_call>", enter=True),
    ),
    (
        "qwen",
        "<think>Maybe <tool_call>{}</tool_call>? No.</think>\n"
        + tc({"action": "left_click", "coordinate": [9, 9]}),
        Click(x=9, y=9, space=N),
    ),
    (
        "qwen",
        tc({"action": "left_click", "coordinate": [1500, 20]}),
        Click(x=1500, y=20, space=P),
        {"coord_space": P},
    ),
    # malformed
    ("qwen", "", "parse_error"),
    ("qwen", "   \n\t ", "parse_error"),
    ("qwen", "I would click on the search box.", "parse_error"),
    (
        "qwen",
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", '
        '"coordinate": [245, 312]',
        "parse_error",
    ),
    (
        "qwen",
        tc({"action": "left_click", "coordinate": [1, 2]}) + "\n" + tc({"action": "go_back"}),
        "parse_error",
    ),
    (
        "qwen",
        '<tool_call>\n{"name": "computer_use", "arguments": {"action": "go_back"}}\n'
        + tc({"action": "go_back"}),
        "parse_error",
    ),
    ("qwen", tc({"action": "left_click", "coordinate": ["412", "230"]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click", "coordinate": "[412, 230]"}), "invalid_coordinates"),
    (
        "qwen",
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        '"coordinate": [NaN, 3]}}</tool_call>',
        "invalid_coordinates",
    ),
    (
        "qwen",
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        '"coordinate": [Infinity, 3]}}</tool_call>',
        "invalid_coordinates",
    ),
    ("qwen", tc({"action": "left_click", "coordinate": [-5, 10]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click", "coordinate": [1001, 10]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click", "coordinate": [10, 1000.5]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click", "coordinate": [1, 2, 3]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click", "coordinate": [True, 5]}), "invalid_coordinates"),
    ("qwen", tc({"action": "left_click"}), "invalid_action"),
    ("qwen", tc({"action": "right_click", "coordinate": [1, 2]}), "invalid_action"),
    ("qwen", tc({"action": "scroll_coords", "coordinate": [1, 2]}), "invalid_action"),
    ("qwen", tc({"action": "left_click", "coordinate": [1, 2]}, name="browser"), "parse_error"),
    ("qwen", tc({"coordinate": [1, 2]}), "parse_error"),
    ("qwen", tc({"action": "type", "coordinate": [1, 2], "text": 12345}), "invalid_action"),
    ("qwen", tc({"action": "type", "text": "x", "enter": "yes"}), "invalid_action"),
    ("qwen", tc({"action": "type", "text": "x" * 3000}), "text_too_long"),
    ("qwen", tc({"action": "key", "keys": ["hyper", "q"]}), "bad_key"),
    ("qwen", tc({"action": "navigate", "url": "javascript:alert(1)"}), "bad_url"),
    ("qwen", tc({"action": "navigate", "url": "file:///etc/passwd"}), "bad_url"),
    ("qwen", tc({"action": "wait", "time": "3"}), "invalid_action"),
    ("qwen", "<tool_call>\n</tool_call>", "parse_error"),
    ("qwen", "<tool_call>[1, 2]</tool_call>", "parse_error"),
    (
        "qwen",
        '<tool_call>{"name": "computer_use", "arguments": {"action": "go_back"}} oops</tool_call>',
        "parse_error",
    ),
]

BROWSERAGENT: list[Case] = [
    (
        "browseragent",
        "<think>\nThe search box has id 331.\n</think>\n\nAction:\n\n```\n"
        "type [331] [Princes in the Tower] [1]\n```",
        Type(element=331, text="Princes in the Tower", enter=True),
    ),
    ("browseragent", ba("click [1459] [Princes in the Tower]"), Click(element=1459)),
    (
        "browseragent",
        "<think>It says King Edward IV.</think>\n<conclusion>The father was Edward IV."
        "</conclusion>\nAction:\n\nstop [King Edward IV]",
        Stop(answer="King Edward IV"),
    ),
    (
        "browseragent",
        ba("stop [Skin Yard: U.S. (Seattle) [1]; Ostava: Bulgaria (not the U.S.)]"),
        Stop(answer="Skin Yard: U.S. (Seattle) [1]; Ostava: Bulgaria (not the U.S.)"),
    ),
    (
        "browseragent",
        "<think>t</think>\n```type [21] [death row inmates] [1]```",
        Type(element=21, text="death row inmates", enter=True),
    ),
    (
        "browseragent",
        ba("type [21] [draft] [press_enter_after=0]"),
        Type(element=21, text="draft", enter=False),
    ),
    ("browseragent", ba("type [21] [no flag]"), Type(element=21, text="no flag", enter=True)),
    ("browseragent", ba("type [5] [1]"), Type(element=5, text="1", enter=True)),
    ("browseragent", ba("type [5] [" + CJK + "] [0]"), Type(element=5, text=CJK, enter=False)),
    ("browseragent", "<think>x</think>\n````bash\nscroll [down]\n````", Scroll(direction="down")),
    ("browseragent", ba("scroll [direction=up]"), Scroll(direction="up")),
    ("browseragent", ba("press [Ctrl+v]"), Press(keys="Control+v")),
    (
        "browseragent",
        ba("goto [en.wikipedia.org/wiki/Bamboogle]"),
        Goto(url="https://en.wikipedia.org/wiki/Bamboogle"),
    ),
    ("browseragent", ba("tab_focus [1]"), TabFocus(index=1)),
    ("browseragent", ba("new_tab"), NewTab()),
    ("browseragent", ba("close_tab"), CloseTab()),
    ("browseragent", ba("go_back"), GoBack()),
    ("browseragent", ba("go_forward"), GoForward()),
    ("browseragent", ba("hover [12] [Menu]"), Hover(element=12)),
    ("browseragent", ba("select [7] [Large (L)]"), Select(element=7, option="Large (L)")),
    ("browseragent", ba("stop [" + EMOJI_RTL + "]"), Stop(answer=EMOJI_RTL)),
    ("browseragent", ba("stop []"), Stop(answer="")),
    ("browseragent", "```click [3]```", Click(element=3)),
    (
        "browseragent",
        "<think>I could use ```click [3]``` here.</think>\n```click [4]```",
        Click(element=4),
    ),
    ("browseragent", "Long reasoning.\n</think>\n```click [8]```", Click(element=8)),
    ("browseragent", "<think>Submit.</think>\n```\nclick [9] [Submit]", Click(element=9)),
    ("browseragent", "<think>ok</think>\nAction: `go_back`", GoBack()),
    # malformed
    ("browseragent", "", "parse_error"),
    ("browseragent", "<think>I am not sure what to do next.</think>", "parse_error"),
    ("browseragent", ba("click 21"), "parse_error"),
    ("browseragent", ba("click [abc] [Search]"), "parse_error"),
    ("browseragent", ba("click [-3]"), "invalid_action"),
    ("browseragent", "<think>t</think>\n```click [1]```\n```click [2]```", "parse_error"),
    ("browseragent", ba("click [1]\nstop [done]"), "parse_error"),
    ("browseragent", ba("swipe [left]"), "parse_error"),
    ("browseragent", ba("press [Hyper+x]"), "bad_key"),
    ("browseragent", ba("goto [javascript:alert(1)]"), "bad_url"),
    ("browseragent", ba("goto [file:///etc/passwd]"), "bad_url"),
    ("browseragent", ba("scroll [sideways]"), "invalid_action"),
    ("browseragent", ba("stop King Edward"), "parse_error"),
    ("browseragent", ba("tab_focus [first]"), "parse_error"),
    ("browseragent", ba("type [3]"), "parse_error"),
    ("browseragent", ba("type [3] [" + "x" * 2001 + "]"), "text_too_long"),
]

FUNCALL: list[Case] = [
    ("funcall", "click(412, 230)", Click(x=412, y=230)),
    ("funcall", "click(element=5)", Click(element=5)),
    ("funcall", "click(5)", Click(element=5)),
    ("funcall", "double_click(x=10.5, y=20)", DoubleClick(x=10.5, y=20)),
    (
        "funcall",
        'type("hello", 100, 200, enter=True)',
        Type(text="hello", x=100, y=200, enter=True),
    ),
    ("funcall", 'type(element=3, text="...")', Type(element=3, text="...")),
    ("funcall", 'type("x", element=3, enter=true)', Type(element=3, text="x", enter=True)),
    ("funcall", 'scroll("down")', Scroll(direction="down")),
    ("funcall", 'scroll("up", 300, 640, 360)', Scroll(direction="up", amount=300, x=640, y=360)),
    ("funcall", 'press("Control+a")', Press(keys="Control+a")),
    ("funcall", 'press(["ctrl", "shift", "t"])', Press(keys="Control+Shift+t")),
    ("funcall", 'goto("https://example.com")', Goto(url="https://example.com")),
    ("funcall", 'navigate("https://example.com")', Goto(url="https://example.com")),
    ("funcall", 'stop("answer")', Stop(answer="answer")),
    ("funcall", 'answer("42")', Stop(answer="42")),
    ("funcall", "stop()", Stop()),
    ("funcall", "left_click(1, 2)", Click(x=1, y=2)),
    ("funcall", 'select(3, "Large")', Select(element=3, option="Large")),
    ("funcall", "wait(2.5)", Wait(seconds=2.5)),
    ("funcall", "tab_focus(1)", TabFocus(index=1)),
    ("funcall", "new_tab()", NewTab()),
    ("funcall", f'type("{CJK} 👋 שלום", 10, 20)', Type(text=f"{CJK} 👋 שלום", x=10, y=20)),
    ("funcall", f"stop({EMOJI_RTL!r})", Stop(answer=EMOJI_RTL)),
    (
        "funcall",
        "I'll click the search box first.\n```python\nclick(412, 230)\n```",
        Click(x=412, y=230),
    ),
    ("funcall", 'stop("use click(5) (twice)")', Stop(answer="use click(5) (twice)")),
    ("funcall", 'stop("a \\"quoted\\" )) answer")', Stop(answer='a "quoted" )) answer')),
    ("funcall", "Hmm, click( is wrong.\nstop('done')", Stop(answer="done")),
    ("funcall", "<think>click(1, 1) maybe</think>\nclick(2, 2)", Click(x=2, y=2)),
    ("funcall", "click(1001, 5)", Click(x=1001, y=5)),
    ("funcall", "click(1001, 5)", "invalid_coordinates", {"coord_space": N}),
    # malformed
    ("funcall", "", "parse_error"),
    ("funcall", "I will click the button.", "parse_error"),
    ("funcall", "click(x, y)", "parse_error"),
    ("funcall", 'click(os.system("rm -rf /"))', "parse_error"),
    ("funcall", '__import__("os").system("ls")', "parse_error"),
    ("funcall", 'click(__import__("os"))', "parse_error"),
    ("funcall", 'type(f"{secret}")', "parse_error"),
    ("funcall", "stop(lambda: 1)", "parse_error"),
    ("funcall", "click(1 + 2, 3)", "parse_error"),
    ("funcall", "click(*[1, 2])", "parse_error"),
    ("funcall", "click(**{'x': 1, 'y': 2})", "parse_error"),
    ("funcall", 'click("412", "230")', "invalid_coordinates"),
    ("funcall", 'click(float("nan"), 3)', "parse_error"),
    ("funcall", "click(1e999, 3)", "invalid_coordinates"),
    ("funcall", "click(-5, 10)", "invalid_coordinates"),
    ("funcall", "click(True, 3)", "invalid_coordinates"),
    ("funcall", "click(x=3)", "invalid_coordinates"),
    ("funcall", 'click(1, 2)\nstop("x")', "parse_error"),
    ("funcall", "right_click(1, 2)", "parse_error"),
    ("funcall", "swipe(1, 2)", "parse_error"),
    ("funcall", "page.click(1, 2)", "parse_error"),
    ("funcall", "click(412, 230", "parse_error"),
    ("funcall", 'stop("unterminated)', "parse_error"),
    ("funcall", 'press("Hyper")', "bad_key"),
    ("funcall", 'goto("javascript:alert(1)")', "bad_url"),
    ("funcall", 'goto("file:///etc/passwd")', "bad_url"),
    ("funcall", 'click(element="5")', "invalid_action"),
    ("funcall", "type(text=123)", "invalid_action"),
    ("funcall", 'tab_focus("1")', "invalid_action"),
    ("funcall", "click(1, 2, 3)", "parse_error"),
    ("funcall", "click(foo=1)", "parse_error"),
    ("funcall", "click(1, 2, x=3)", "parse_error"),
    ("funcall", "go_back(1)", "parse_error"),
    ("funcall", 'scroll("sideways")', "invalid_action"),
    ("funcall", "wait(-1)", "invalid_action"),
]

CASES: list[Case] = QWEN + BROWSERAGENT + FUNCALL


def _ids(case: Case) -> str:
    fmt, text = case[0], case[1]
    flat = " ".join(text.split())[:50]
    return f"{fmt}:{flat}"


def test_corpus_is_large_enough() -> None:
    malformed = [c for c in CASES if isinstance(c[2], str)]
    assert len(CASES) >= 50
    assert len(malformed) >= 50
    assert {c[0] for c in CASES} == {"qwen", "browseragent", "funcall"}


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_corpus(case: Case) -> None:
    fmt, text, expected = case[0], case[1], case[2]
    kwargs: dict[str, Any] = case[3] if len(case) > 3 else {}  # type: ignore[misc]
    if isinstance(expected, str):
        with pytest.raises(AgentError) as info:
            parse(text, fmt, **kwargs)
        assert info.value.code == expected, info.value.message
        assert "Expected format" in info.value.message
    else:
        parsed = parse(text, fmt, **kwargs)
        assert parsed.action == expected
        assert type(parsed.action) is type(expected)
        assert parsed.raw == text
