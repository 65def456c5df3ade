"""The Qwen ``computer_use`` tool-call format, as used by WebGym.

A step's output is optional reasoning, then exactly one block::

    <tool_call>
    {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [412, 230]}}
    </tool_call>

With WebGym's memory prompt the block is preceded by labelled fields, read into
``Parsed.memory`` (Memory, Progress, Intention) and ``Parsed.thought`` (the Action sentence)::

    Memory: {"Price of product 1": "10.00"}
    Progress: {"Go to amazon.com": "finished", "Search for product 2": "not finished"}
    Intention: "Search for product 2"
    Action: Type the product name into the search box.

Coordinates are ``[x, y]`` with x horizontal, in 0-1000 by default (``CoordSpace.NORM1000``).

The actions and their arguments are listed in ``qwen_arguments.py``, which turns the
arguments into an Action.

The function name must be ``computer_use``; "computer use" (with a space) is accepted too,
because the WebGym paper's text shows it that way. Unknown argument keys are ignored.

Leniency: spaces inside the tags (and ``<tool call>``); ```json fences inside the block; a
missing closing tag at the very end; trailing commas; single-quoted (Python-style) objects;
``arguments`` given as a JSON string; a stray extra ``}`` after complete JSON. Not tolerated:
truncated JSON, two tool calls, other text after the JSON, strings where numbers belong, no
``<tool_call>`` tag at all. ``<think>`` reasoning is set aside first, so a tool call quoted in it
does not count.

``thought`` is the Action sentence, else the ``<think>`` text, else (when the text before the
block has no labels at all) that text.
"""

from __future__ import annotations

import json
import re
from typing import Any

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
    Stop,
    TabFocus,
    Type,
    Wait,
)
from webdojo.errors import ParseError

from ._helpers import (
    THINK,
    check_text,
    fail,
    load_json_like,
    num,
    require_space,
    split_think,
    strip_fence,
    tag_patterns,
)
from .qwen_arguments import FUNCTION, action_from_arguments, hint, normalize_name
from .qwen_memory import read_preamble
from .types import Parsed

_OPEN, _CLOSE = tag_patterns("tool[_ ]call")
_FENCE_START = re.compile(r"[ \t\r\n]*(?:`{3,}[\w+-]*[ \t]*\n)?[ \t\r\n]*")
_TAIL = re.compile(r"[\s`}]*")  # a stray extra "}" after complete JSON is forgiven


def parse(text: str, coord_space: CoordSpace = CoordSpace.NORM1000) -> Parsed:
    expected = hint(coord_space)
    check_text(text, expected)
    think, rest = split_think(text)
    opened = _OPEN.search(rest)
    if opened is None:
        raise fail("no <tool_call> block found", expected)
    try:
        call, end = _read_call(rest, opened.end(), expected)
    except ParseError:
        if _OPEN.search(rest, opened.end()) is None:
            raise
        end = opened.end()  # the block did not read cleanly and another one follows
    if _OPEN.search(rest, end) is not None:
        count = len(_OPEN.findall(rest))
        raise fail(f"found {count} <tool_call> blocks; give exactly one action per step", expected)
    action = action_from_arguments(_arguments(call, expected), coord_space)
    memory, sentence, prose = read_preamble(rest[: opened.start()])
    return Parsed(action=action, thought=sentence or think or prose, memory=memory, raw=text)


def _read_call(text: str, start: int, expected: str) -> tuple[Any, int]:
    """Decode the JSON after an opening tag; return it and where the block ends.

    Strict JSON is decoded in place first, so a closing tag inside a string value does not
    end the block; only if that fails is the block cut at its closing tag and read leniently.
    """
    fenced = _FENCE_START.match(text, start)
    body_start = fenced.end() if fenced else start
    try:
        value, end = json.JSONDecoder().raw_decode(text, body_start)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        closing = _CLOSE.search(text, body_start)
        body = strip_fence(text[body_start : closing.start() if closing else len(text)])
        if not body:
            raise fail("the <tool_call> block is empty", expected) from None
        try:
            value = load_json_like(body)
        except ValueError as exc:
            cut_off = "" if closing else " (the output may have been cut off)"
            raise fail(f"could not read the tool call: {exc}{cut_off}", expected) from None
        return value, closing.end() if closing else len(text)
    closing = _CLOSE.search(text, end)
    tail = text[end : closing.start() if closing else len(text)]
    if _TAIL.fullmatch(tail) is None:
        snippet = tail.strip()[:40]
        raise fail(f"unexpected text after the tool call's JSON: {snippet!r}", expected)
    return value, closing.end() if closing else len(text)


def _arguments(call: Any, expected: str) -> dict[str, Any]:
    if not isinstance(call, dict):
        raise fail('the tool call must be a JSON object with "name" and "arguments"', expected)
    name = call.get("name")
    if not isinstance(name, str) or normalize_name(name) != FUNCTION:
        raise fail(f"unknown function {name!r}; the only function is {FUNCTION}", expected)
    args = call.get("arguments", call.get("parameters"))
    if isinstance(args, str):
        try:
            args = load_json_like(args)
        except ValueError as exc:
            raise fail(f'could not read "arguments": {exc}', expected) from None
    if not isinstance(args, dict):
        raise fail('"arguments" must be a JSON object', expected)
    return args


# --- rendering ----------------------------------------------------------------------------

_SIGN = {"up": 1, "right": 1, "down": -1, "left": -1}


def render(action: Action, coord_space: CoordSpace = CoordSpace.NORM1000) -> str:
    """The canonical tool-call text for ``action``; ValueError if this format cannot say it
    (element targets, select)."""
    require_space(action, coord_space, "qwen")
    args = _render_arguments(action)
    body = json.dumps({"name": FUNCTION, "arguments": args}, ensure_ascii=False)
    if THINK[1].search(body):  # a "</think>" in a string would end the reasoning early
        body = body.replace("<", "\\u003c")
    return f"<tool_call>\n{body}\n</tool_call>"


def _render_arguments(action: Action) -> dict[str, Any]:
    if getattr(action, "element", None) is not None:
        raise ValueError(f"the qwen format has no element ids: cannot render {action.describe()}")
    x, y = getattr(action, "x", None), getattr(action, "y", None)
    coord = {"coordinate": [num(x), num(y)]} if x is not None and y is not None else {}
    match action:
        case Click():
            return {"action": "left_click", **coord}
        case DoubleClick():
            return {"action": "double_click", **coord}
        case Hover():
            return {"action": "mouse_move", **coord}
        case Type():
            extra = {} if action.enter else {"enter": False}
            return {"action": "type", **coord, "text": action.text, **extra}
        case Scroll():
            out: dict[str, Any] = {"action": "scroll", **coord, "direction": action.direction}
            if action.amount is not None:
                out["pixels"] = _SIGN[action.direction] * action.amount
            return out
        case Press():
            keys = ["+"] if action.keys == "+" else action.keys.split("+")
            return {"action": "key", "keys": keys}
        case Goto():
            return {"action": "navigate", "url": action.url}
        case GoBack():
            return {"action": "go_back"}
        case GoForward():
            return {"action": "go_forward"}
        case NewTab():
            return {"action": "new_tab", **({"url": action.url} if action.url else {})}
        case TabFocus():
            return {"action": "tab_focus", "index": action.index}
        case CloseTab():
            return {"action": "close_tab"}
        case Wait():
            return {"action": "wait", "time": num(action.seconds)}
        case Stop():
            return {"action": "answer", "text": action.answer}
    raise ValueError(f"the qwen format cannot express {action.describe()}")
