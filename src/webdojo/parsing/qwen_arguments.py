"""The ``computer_use`` function of the Qwen format (``qwen.py``): its arguments -> an Action.

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

Unknown argument keys are ignored. ``action_from_arguments`` is also useful when the serving
stack already extracted the tool call (OpenAI ``tool_calls``). ``hint`` is the "Expected
format" sentence that ends every error message of the format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from webdojo.actions import Action, CoordSpace
from webdojo.errors import InvalidActionError, InvalidCoordinates

from ._helpers import boolean, build, fail, integer, number, point, string, with_hint

FUNCTION = "computer_use"
Handler = Callable[[dict[str, Any], str, CoordSpace], dict[str, Any]]  # arguments -> fields


def hint(space: CoordSpace = CoordSpace.NORM1000) -> str:
    where = "numbers in 0-1000" if space is CoordSpace.NORM1000 else "pixel numbers"
    return (
        "Expected format: optional reasoning, then exactly one block "
        '<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
        f'"coordinate": [x, y]}}}}</tool_call> with x (horizontal) and y as {where}'
    )


def normalize_name(name: str) -> str:
    """``"Left Click"`` -> ``"left_click"``: lower case, spaces and hyphens as underscores."""
    return re.sub(r"[\s-]+", "_", name.strip().lower())


def action_from_arguments(
    args: dict[str, Any], coord_space: CoordSpace = CoordSpace.NORM1000
) -> Action:
    """Build an action from ``computer_use`` arguments. Also useful when the serving stack
    already extracted the tool call (OpenAI ``tool_calls``)."""
    expected = hint(coord_space)
    raw_name = args.get("action")
    if not isinstance(raw_name, str) or not raw_name.strip():
        raise fail('the arguments need an "action" string', expected)
    name = normalize_name(raw_name)
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
    "left_click",
    "double_click",
    "mouse_move",
    "type",
    "scroll",
    "hscroll",
    "wait",
    "navigate",
    "go_back",
    "go_forward",
    "key",
    "answer",
    "terminate",
    "new_tab",
    "tab_focus",
    "close_tab",
)
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
