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

Actions (names are matched case-insensitively; spaces and hyphens count as underscores, so the
"left click" of some transcriptions works):

=========================  ==================================================================
left_click, click          Click at ``coordinate``
double_click               DoubleClick at ``coordinate``
mouse_move, hover          Hover at ``coordinate``
type                       Type ``text``, at ``coordinate`` if given. Presses Enter afterwards
                           (WebGym's behaviour) unless ``"enter": false``
scroll, hscroll            Scroll ``direction`` (up/down/left/right) or by signed ``pixels``
                           (scroll: positive is up; hscroll: positive is right), at
                           ``coordinate`` if given. One action: there is no scroll_coords
wait                       Wait ``time`` seconds
navigate, goto             Goto ``url``
go_back, back / go_forward GoBack / GoForward
key, keys, press, hotkey   Press ``keys`` (a list such as ["ctrl", "a"], or "ctrl+a")
answer, stop               Stop with ``text`` as the answer
terminate                  Stop; ``status: "failure"`` without text answers "N/A"
new_tab, tab_focus,        NewTab (``url`` optional), TabFocus (``index``), CloseTab
close_tab
=========================  ==================================================================

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
from collections.abc import Callable
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
from webdojo.errors import InvalidActionError, InvalidCoordinates, ParseError

from ._helpers import (
    THINK,
    boolean,
    build,
    check_text,
    fail,
    integer,
    load_json_like,
    num,
    number,
    point,
    require_space,
    split_think,
    string,
    strip_fence,
    tag_patterns,
    with_hint,
)
from .qwen_memory import read_preamble
from .types import Parsed

FUNCTION = "computer_use"
Handler = Callable[[dict[str, Any], str, CoordSpace], dict[str, Any]]  # arguments -> fields
_OPEN, _CLOSE = tag_patterns("tool[_ ]call")
_FENCE_START = re.compile(r"[ \t\r\n]*(?:`{3,}[\w+-]*[ \t]*\n)?[ \t\r\n]*")
_TAIL = re.compile(r"[\s`}]*")  # a stray extra "}" after complete JSON is forgiven


def hint(space: CoordSpace = CoordSpace.NORM1000) -> str:
    where = "numbers in 0-1000" if space is CoordSpace.NORM1000 else "pixel numbers"
    return (
        "Expected format: optional reasoning, then exactly one block "
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        f'"coordinate": [x, y]}}}}</tool_call> with x (horizontal) and y as {where}'
    )


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
    if not isinstance(name, str) or _key(name) != FUNCTION:
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


def _key(name: str) -> str:
    return re.sub(r"[\s-]+", "_", name.strip().lower())


# --- arguments -> action ------------------------------------------------------------------


def action_from_arguments(
    args: dict[str, Any], coord_space: CoordSpace = CoordSpace.NORM1000
) -> Action:
    """Build an action from ``computer_use`` arguments. Also useful when the serving stack
    already extracted the tool call (OpenAI ``tool_calls``)."""
    expected = hint(coord_space)
    raw_name = args.get("action")
    if not isinstance(raw_name, str) or not raw_name.strip():
        raise fail('the arguments need an "action" string', expected)
    name = _key(raw_name)
    handler = _HANDLERS.get(name)
    if handler is None:
        known = ", ".join(_PRIMARY)
        raise with_hint(
            InvalidActionError(f"unknown action {raw_name!r}; use one of: {known}"), expected
        )
    try:
        fields = handler(args, name, coord_space)
    except InvalidActionError as exc:
        raise with_hint(exc, expected) from exc
    return build(fields, expected)


def _point(args: dict[str, Any], name: str, space: CoordSpace, required: bool) -> dict[str, Any]:
    coord = args.get("coordinate", args.get("coordinates"))
    if coord is None:
        if required:
            raise InvalidActionError(f'{name} needs "coordinate": [x, y]')
        return {}
    if isinstance(coord, str):
        raise InvalidCoordinates(
            f'"coordinate" must be a JSON array of two numbers such as [412, 230], '
            f"not the string {coord[:40]!r}"
        )
    if not isinstance(coord, list) or len(coord) != 2:
        raise InvalidCoordinates('"coordinate" must be an array of exactly two numbers [x, y]')
    x, y = point(coord[0], coord[1], space)
    return {"x": x, "y": y, "space": space}


def _pointer(kind: str) -> Handler:
    def handler(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
        return {"type": kind, **_point(args, name, space, required=True)}

    return handler


def _type(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    if "text" not in args:
        raise InvalidActionError('type needs "text"')
    flag = args.get("enter", args.get("press_enter"))
    enter = True if flag is None else boolean(flag, '"enter"')
    text = string(args["text"], '"text"')
    return {"type": "type", "text": text, "enter": enter, **_point(args, name, space, False)}


def _scroll(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    direction = args.get("direction")
    pixels = args.get("pixels", args.get("amount"))
    fields: dict[str, Any] = {"type": "scroll", **_point(args, name, space, False)}
    if pixels is not None:
        signed = number(pixels, '"pixels"')
        fields["amount"] = round(abs(signed))
        if direction is None:
            horizontal = name == "hscroll"
            direction = (
                ("right" if signed > 0 else "left")
                if horizontal
                else ("up" if signed > 0 else "down")
            )
    if direction is None:
        raise InvalidActionError('scroll needs "direction": "up" or "down"')
    fields["direction"] = string(direction, '"direction"').strip().lower()
    return fields


def _wait(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    seconds = args.get("time", args.get("seconds"))
    if seconds is None:
        return {"type": "wait"}
    return {"type": "wait", "seconds": number(seconds, '"time"')}


def _goto(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    if "url" not in args:
        raise InvalidActionError(f'{name} needs "url"')
    return {"type": "goto", "url": string(args["url"], '"url"')}


def _keys(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    keys = args.get("keys", args.get("key", args.get("text")))
    if isinstance(keys, list):
        keys = "+".join(string(k, '"keys" items') for k in keys)
    if keys is None:
        raise InvalidActionError(f'{name} needs "keys", e.g. ["ctrl", "a"]')
    return {"type": "press", "keys": string(keys, '"keys"')}


def _answer(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    text = args.get("text", args.get("answer"))
    if text is None and name == "terminate":
        status = args.get("status")
        text = "N/A" if isinstance(status, str) and status.lower() == "failure" else ""
    return {"type": "stop", "answer": "" if text is None else string(text, '"text"')}


def _new_tab(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    url = args.get("url")
    return {"type": "new_tab", "url": None if url is None else string(url, '"url"')}


def _tab_focus(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
    index = args.get("index", args.get("tab_index"))
    if index is None:
        raise InvalidActionError('tab_focus needs "index"')
    return {"type": "tab_focus", "index": integer(index, '"index"')}


def _plain(kind: str) -> Handler:
    def handler(args: dict[str, Any], name: str, space: CoordSpace) -> dict[str, Any]:
        return {"type": kind}

    return handler


_PRIMARY = (
    "left_click", "double_click", "mouse_move", "type", "scroll", "hscroll", "wait", "navigate",
    "go_back", "go_forward", "key", "answer", "terminate", "new_tab", "tab_focus", "close_tab",
)  # fmt: skip
_HANDLERS: dict[str, Handler] = {
    "left_click": _pointer("click"),
    "click": _pointer("click"),
    "double_click": _pointer("double_click"),
    "mouse_move": _pointer("hover"),
    "hover": _pointer("hover"),
    "type": _type,
    "scroll": _scroll,
    "hscroll": _scroll,
    "wait": _wait,
    "navigate": _goto,
    "goto": _goto,
    "go_back": _plain("go_back"),
    "back": _plain("go_back"),
    "go_forward": _plain("go_forward"),
    "forward": _plain("go_forward"),
    "key": _keys,
    "keys": _keys,
    "press": _keys,
    "hotkey": _keys,
    "answer": _answer,
    "stop": _answer,
    "terminate": _answer,
    "new_tab": _new_tab,
    "tab_focus": _tab_focus,
    "close_tab": _plain("close_tab"),
}


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
