"""The function-call format: one Python-style call with literal arguments, e.g.::

    click(412, 230)              click(element=5)      click(5)   (one number is an element id)
    double_click(x=10, y=20)     hover(element=7)
    type("hello", 100, 200, enter=True)   type("hello", element=3)   type("hello")
    scroll("down")   scroll("down", 300)   scroll("up", 300, 640, 360)   scroll("down", element=4)
    select(3, "Large")   press("Control+a")   press(["ctrl", "a"])   goto("https://example.com")
    new_tab()   new_tab("https://example.com")   tab_focus(1)   close_tab()   go_back()
    go_forward()   wait(2)   stop("answer")   stop()

Aliases: ``answer`` for stop, ``navigate`` for goto, ``left_click`` for click, ``back`` for
go_back. Keyword names: element, x, y, text, enter, direction, amount, option, keys, url,
index, seconds, answer.

The call is read with ``ast.parse(..., mode="eval")`` and never evaluated. Arguments must be
literals: strings, numbers (a leading minus is fine), True/False/None (JSON's true/false/null
too) and lists. Names, attribute access, nested calls, f-strings, operators, lambdas and
``*``/``**`` are refused.

The call may sit inside prose or a code fence. Call sites are found with a pattern (an action
name directly followed by ``(``, not preceded by a letter, digit, ``_`` or ``.``), and each
one's closing parenthesis is found by a scanner that knows string literals. A call nested in
another call's arguments (``stop("use click(5)")``) is part of that call. Exactly one complete
call must remain: two calls are an error, so is none.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from webdojo.actions import (
    ACTION_NAMES,
    ALIASES,
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
from webdojo.errors import InvalidActionError, InvalidCoordinates

from ._helpers import (
    THINK,
    boolean,
    build,
    check_text,
    drop_fence_opening,
    fail,
    integer,
    literal,
    num,
    number,
    point,
    require_space,
    split_think,
    string,
    with_hint,
)
from .types import Parsed

HINT = (
    "Expected format: exactly one call with literal arguments, e.g. click(412, 230), "
    'click(element=5), type("hello", 100, 200, enter=True), scroll("down"), press("Enter"), '
    'goto("https://example.com"), stop("your answer")'
)
NAMES = (*ACTION_NAMES, *ALIASES)
MAX_CALL_CHARS = 24_000  # one call's text; a stop answer may be 10,000 characters
MAX_CALL_SITES = 32  # more candidate call sites than this is not one action
_SITE = re.compile(r"(?<![\w.])(" + "|".join(sorted(NAMES, key=len, reverse=True)) + r")\(")
_CODE = re.compile(r"[()'\"#\n]")
_STRING_END = {
    q: re.compile(r"\\.|" + re.escape(q) + ("" if len(q) == 3 else r"|\n"), re.S)
    for q in ("'", '"', "'''", '"""')
}

_POINTERS = {"click", "double_click", "hover"}
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "click": ("element", "x", "y"),
    "double_click": ("element", "x", "y"),
    "hover": ("element", "x", "y"),
    "type": ("text", "element", "x", "y", "enter"),
    "scroll": ("direction", "amount", "x", "y", "element"),
    "select": ("element", "option"),
    "press": ("keys",),
    "goto": ("url",),
    "new_tab": ("url",),
    "tab_focus": ("index",),
    "wait": ("seconds",),
    "stop": ("answer",),
    "go_back": (),
    "go_forward": (),
    "close_tab": (),
}


def parse(text: str, coord_space: CoordSpace = CoordSpace.PIXEL) -> Parsed:
    check_text(text, HINT)
    thought, rest = split_think(text)
    call, start = _find_call(rest)
    if thought is None:
        thought = drop_fence_opening(rest[:start]).strip() or None
    assert isinstance(call.func, ast.Name)  # the call site pattern guarantees a plain name
    name = ALIASES.get(call.func.id, call.func.id)
    try:
        fields = _fields(name, call, coord_space)
    except InvalidActionError as exc:
        raise with_hint(exc, HINT) from exc
    return Parsed(action=build(fields, HINT), thought=thought, memory=None, raw=text)


# --- finding the call ---------------------------------------------------------------------


def _find_call(text: str) -> tuple[ast.Call, int]:
    sites = list(_SITE.finditer(text))
    if not sites:
        raise fail("no action call found", HINT)
    if len(sites) > MAX_CALL_SITES:
        raise fail(f"found {len(sites)} action-like calls; write exactly one", HINT)
    calls: list[tuple[ast.Call, int]] = []
    problem = ""
    covered = 0
    for site in sites:
        if site.start() < covered:
            continue  # inside an earlier call's arguments
        end = _closing_paren(text, site.end() - 1)
        if end is None:
            problem = f"`{site.group(1)}(` is never closed"
            continue
        source = text[site.start() : end]
        try:
            tree = ast.parse(source, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            detail = exc.msg if isinstance(exc, SyntaxError) else "unreadable"
            problem = f"could not read `{_clip(source)}`: {detail}"
            continue
        covered = end
        calls.append((tree.body, site.start()))  # type: ignore[arg-type]
    if len(calls) > 1:
        raise fail(f"found {len(calls)} action calls; write exactly one per step", HINT)
    if not calls:
        raise fail(problem, HINT)
    return calls[0]


def _clip(source: str) -> str:
    flat = " ".join(source.split())
    return flat if len(flat) <= 60 else flat[:57] + "..."


def _closing_paren(text: str, start: int) -> int | None:
    """Index just past the ``)`` matching the ``(`` at ``start``, skipping string literals;
    None if it is not closed within MAX_CALL_CHARS."""
    limit = min(len(text), start + MAX_CALL_CHARS)
    depth = 0
    pos = start
    while (token := _CODE.search(text, pos, limit)) is not None:
        char, pos = token.group(), token.end()
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos
        elif char in "'\"":
            quote = char * 3 if text.startswith(char * 3, token.start()) else char
            after = _string_end(text, token.start() + len(quote), quote, limit)
            if after is None:
                return None
            pos = after
        elif char == "#":
            newline = text.find("\n", pos, limit)
            pos = limit if newline < 0 else newline
    return None


def _string_end(text: str, pos: int, quote: str, limit: int) -> int | None:
    pattern = _STRING_END[quote]
    while (m := pattern.search(text, pos, limit)) is not None:
        if m.group() == quote:
            return m.end()
        if m.group() == "\n":
            return None  # a one-line string may not span lines
        pos = m.end()  # an escape
    return None


# --- arguments -> fields ------------------------------------------------------------------


def _fields(name: str, call: ast.Call, space: CoordSpace) -> dict[str, Any]:
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            raise fail(f"{name}() does not take *arguments", HINT)
        positional.append(_literal(arg, name))
    for kw in call.keywords:
        if kw.arg is None:
            raise fail(f"{name}() does not take **arguments", HINT)
        key = {"text": "answer"}.get(kw.arg, kw.arg) if name == "stop" else kw.arg
        key = "keys" if name == "press" and key == "key" else key
        if key not in _KEYWORDS[name]:
            allowed = ", ".join(_KEYWORDS[name]) or "no arguments"
            raise fail(f"{name}() has no argument {kw.arg!r}; it takes {allowed}", HINT)
        if key in keywords:
            raise fail(f"{name}() got {kw.arg!r} twice", HINT)
        keywords[key] = _literal(kw.value, name)
    return _bind(name, positional, keywords, space)


def _literal(node: ast.expr, name: str) -> Any:
    try:
        return literal(node)
    except (ValueError, TypeError) as exc:
        raise fail(
            f"arguments of {name}() must be literals (numbers, strings, True/False, None, "
            f"lists): {exc}",
            HINT,
        ) from None


def _positional_names(name: str, count: int) -> tuple[str, ...]:
    target = ("element",) if count == 1 else ("x", "y")
    if name in _POINTERS:
        return target
    if name == "type":
        return ("text", *(("element",) if count == 2 else ("x", "y")))
    if name == "scroll":
        return ("direction", "amount", "x", "y")
    return _KEYWORDS[name][:1] if name != "select" else ("element", "option")


def _bind(
    name: str, positional: list[Any], keywords: dict[str, Any], space: CoordSpace
) -> dict[str, Any]:
    order = _positional_names(name, len(positional))
    if len(positional) > len(order):
        raise fail(f"{name}() takes at most {len(order)} positional arguments", HINT)
    args = dict(zip(order, positional, strict=False))
    for key, value in keywords.items():
        if key in args:
            raise fail(f"{name}() got {key!r} both by position and by name", HINT)
        args[key] = value
    return _typed(name, args, space)


def _typed(name: str, args: dict[str, Any], space: CoordSpace) -> dict[str, Any]:
    """Check each argument's type strictly (pydantic alone would turn "412" into 412.0)."""
    fields: dict[str, Any] = {"type": name}
    if "x" in args or "y" in args:
        if "x" not in args or "y" not in args:
            raise InvalidCoordinates("give both x and y")
        x, y = point(args.pop("x"), args.pop("y"), space)
        fields.update(x=x, y=y, space=space)
    for key, value in args.items():
        if key in ("element", "index"):
            fields[key] = integer(value, key)
        elif key == "enter":
            fields[key] = boolean(value, key)
        elif key == "amount":
            fields[key] = integer(value, key)
        elif key == "seconds":
            fields[key] = number(value, key)
        elif key == "keys" and isinstance(value, list):
            fields[key] = "+".join(string(k, "each key") for k in value)
        elif key in ("url", "answer") and value is None:
            continue
        else:
            fields[key] = string(value, key)
    return fields


# --- rendering ----------------------------------------------------------------------------


def render(action: Action, coord_space: CoordSpace = CoordSpace.PIXEL) -> str:
    """The canonical call for ``action``. Every action can be expressed."""
    require_space(action, coord_space, "funcall")
    text = f"{action.type}({', '.join(_render_args(action))})"
    if THINK[1].search(text):  # only inside strings: "</think>" would end the reasoning early
        text = text.replace("<", "\\x3c")
    return text


def _str(value: str) -> str:
    """A double-quoted literal, as models usually write them (JSON escapes are valid Python)."""
    return json.dumps(value, ensure_ascii=False)


def _target(action: Click | DoubleClick | Hover | Type | Scroll, positional: bool) -> list[str]:
    if action.element is not None:
        return [f"element={action.element}"]
    if action.x is None or action.y is None:
        return []
    x, y = num(action.x), num(action.y)
    return [f"{x!r}, {y!r}"] if positional else [f"x={x!r}", f"y={y!r}"]


def _render_args(action: Action) -> list[str]:
    match action:
        case Click() | DoubleClick() | Hover():
            return _target(action, positional=True)
        case Type():
            enter = ["enter=True"] if action.enter else []
            return [_str(action.text), *_target(action, positional=True), *enter]
        case Scroll():
            amount = [repr(action.amount)] if action.amount is not None else []
            return [_str(action.direction), *amount, *_target(action, positional=bool(amount))]
        case Select():
            return [repr(action.element), _str(action.option)]
        case Press():
            return [_str(action.keys)]
        case Goto():
            return [_str(action.url)]
        case NewTab():
            return [_str(action.url)] if action.url else []
        case TabFocus():
            return [repr(action.index)]
        case Wait():
            return [repr(num(action.seconds))]
        case Stop():
            return [_str(action.answer)]
        case GoBack() | GoForward() | CloseTab():
            return []
    raise ValueError(f"the funcall format cannot express {action}")  # pragma: no cover
