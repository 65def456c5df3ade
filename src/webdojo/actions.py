"""The action space: the union of WebGym's, BrowserAgent's and Weblica's.

Each action is a pydantic model whose docstring is its one and only documentation: prompt
templates are generated from these docstrings (``describe_actions``).

Targets. Pointer actions (click, double_click, hover, type, scroll) take *either* an element
id (from the accessibility tree or set-of-marks of the current observation) *or* a point
``x, y``. Points come in one of two spaces (``CoordSpace``): screenshot pixels, or 0-1000
normalized coordinates (the Qwen-VL convention WebGym uses). ``to_viewport_pixels`` is the only
place where one is converted to the other.

Validation happens in two layers:
* construction (pydantic): types, NaN/inf, sizes, enums, key names, URL syntax;
* ``check_action(action, ctx)``: what needs the current page (viewport bounds, known element
  ids, number of tabs). Each failure raises an ``InvalidActionError`` subclass with a stable code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from webdojo.errors import (
    BadKey,
    BadTab,
    BadUrl,
    InvalidActionError,
    InvalidCoordinates,
    TextTooLong,
    UnknownElement,
)

MAX_TEXT_CHARS = 2_000  # longest string a type action may enter
MAX_ANSWER_CHARS = 10_000  # longest final answer
MAX_URL_CHARS = 2_048
MAX_WAIT_SECONDS = 10.0  # a wait longer than this is capped, not refused
NORM_RANGE = 1000  # Qwen-VL normalized coordinates span 0..1000 on both axes
DEFAULT_SCROLL_PIXELS = 600


class CoordSpace(StrEnum):
    """How a point's x, y are expressed."""

    PIXEL = "pixel"  # screenshot pixels, origin top-left
    NORM1000 = "norm1000"  # 0-1000 on each axis, independent of the viewport size


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def describe(self) -> str:
        """A compact one-line rendering such as ``click(element=5)``: for people (the viewer,
        the report, logs) and for prompts' history text. The coordinate space is named only
        when it is not the default."""
        fields = self.model_dump(mode="json", exclude_none=True, exclude={"type"})
        if fields.get("space") != CoordSpace.NORM1000.value or "x" not in fields:
            fields.pop("space", None)
        args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
        return f"{self.type}({args})"  # type: ignore[attr-defined]


class _Pointer(_Action):
    """Shared target fields: exactly one of ``element`` or ``x``+``y`` (``type`` and ``scroll``
    also allow neither)."""

    element: int | None = Field(default=None, ge=0, description="element id from the observation")
    x: float | None = Field(default=None, description="horizontal position")
    y: float | None = Field(default=None, description="vertical position")
    space: CoordSpace = Field(default=CoordSpace.PIXEL, description="how x, y are expressed")
    target_optional: ClassVar[bool] = False  # type and scroll may act on focus / the page

    def has_point(self) -> bool:
        return self.x is not None and self.y is not None

    def _require_one_target(self, optional: bool) -> None:
        if (self.x is None) != (self.y is None):
            raise InvalidCoordinates("give both x and y, or neither")
        if self.element is not None and self.has_point():
            raise InvalidActionError("give an element id or coordinates, not both")
        if not optional and self.element is None and not self.has_point():
            raise InvalidActionError(f"{self.type} needs an element id or x, y coordinates")  # type: ignore[attr-defined]

    def model_post_init(self, __context: Any) -> None:
        self._require_one_target(optional=self.target_optional)


PointerAction = _Pointer  # public name: actions that target an element or a point


class Click(_Pointer):
    """Click the left mouse button on an element or at a point."""

    type: Literal["click"] = "click"


class DoubleClick(_Pointer):
    """Double-click on an element or at a point (selects a word, opens an item)."""

    type: Literal["double_click"] = "double_click"


class Hover(_Pointer):
    """Move the mouse over an element or a point without clicking (opens hover menus)."""

    type: Literal["hover"] = "hover"


class Type(_Pointer):
    """Type text. With a target, first click it and clear its current value; without one, type
    into whatever has focus. With ``enter``, press Enter afterwards."""

    type: Literal["type"] = "type"
    text: str = Field(description="the text to enter")
    enter: bool = Field(default=False, description="press Enter after typing")
    target_optional: ClassVar[bool] = True

    @field_validator("text")
    @classmethod
    def _cap_text(cls, value: str) -> str:
        if len(value) > MAX_TEXT_CHARS:
            raise TextTooLong(f"text is {len(value)} characters; the limit is {MAX_TEXT_CHARS}")
        return value


class Scroll(_Pointer):
    """Scroll the page (or the element / point given) up, down, left or right. ``amount`` is in
    pixels and defaults to most of a screen."""

    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"]
    amount: int | None = Field(default=None, gt=0, le=20_000, description="pixels to scroll")
    target_optional: ClassVar[bool] = True


class Select(_Action):
    """Choose an option of a <select> element, by its visible label or value."""

    type: Literal["select"] = "select"
    element: int = Field(ge=0, description="id of the select element")
    option: str = Field(max_length=MAX_TEXT_CHARS, description="label or value of the option")


class Press(_Action):
    """Press a key or key combination, e.g. ``Enter``, ``Control+a``, ``Shift+Tab``."""

    type: Literal["press"] = "press"
    keys: str = Field(description="key names joined by '+'")

    @field_validator("keys")
    @classmethod
    def _known_keys(cls, value: str) -> str:
        return normalize_keys(value)


class Goto(_Action):
    """Open a URL in the current tab."""

    type: Literal["goto"] = "goto"
    url: str

    @field_validator("url")
    @classmethod
    def _valid_url(cls, value: str) -> str:
        return check_url(value)


class GoBack(_Action):
    """Go back to the previous page in this tab's history."""

    type: Literal["go_back"] = "go_back"


class GoForward(_Action):
    """Go forward again after going back."""

    type: Literal["go_forward"] = "go_forward"


class NewTab(_Action):
    """Open a new tab (optionally at a URL) and switch to it."""

    type: Literal["new_tab"] = "new_tab"
    url: str | None = None

    @field_validator("url")
    @classmethod
    def _valid_url(cls, value: str | None) -> str | None:
        return None if value is None else check_url(value)


class TabFocus(_Action):
    """Switch to the tab with this index (0 is the first tab)."""

    type: Literal["tab_focus"] = "tab_focus"
    index: int = Field(ge=0)


class CloseTab(_Action):
    """Close the current tab and switch to the previous one."""

    type: Literal["close_tab"] = "close_tab"


class Wait(_Action):
    """Wait for the page to change, in seconds (capped at 10)."""

    type: Literal["wait"] = "wait"
    seconds: float = Field(default=1.0, ge=0)

    @field_validator("seconds")
    @classmethod
    def _cap(cls, value: float) -> float:
        return min(value, MAX_WAIT_SECONDS)


class Stop(_Action):
    """Finish the task. Put the answer in ``answer`` when the task asks for information (write
    "N/A" if it cannot be done); leave it empty when the task was to change something."""

    type: Literal["stop"] = "stop"
    answer: str = Field(default="", max_length=MAX_ANSWER_CHARS)


Action = Annotated[
    Click
    | DoubleClick
    | Hover
    | Type
    | Scroll
    | Select
    | Press
    | Goto
    | GoBack
    | GoForward
    | NewTab
    | TabFocus
    | CloseTab
    | Wait
    | Stop,
    Field(discriminator="type"),
]

ACTION_TYPES: tuple[type[_Action], ...] = (
    Click,
    DoubleClick,
    Hover,
    Type,
    Scroll,
    Select,
    Press,
    Goto,
    GoBack,
    GoForward,
    NewTab,
    TabFocus,
    CloseTab,
    Wait,
    Stop,
)
ACTION_NAMES: tuple[str, ...] = tuple(cls.model_fields["type"].default for cls in ACTION_TYPES)
ALIASES = {"answer": "stop", "left_click": "click", "navigate": "goto", "back": "go_back"}

_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def action_from_dict(data: dict[str, Any]) -> Action:
    """Build an action from a plain dict such as ``{"type": "click", "element": 3}``.

    Aliases (``answer`` -> ``stop``...) are accepted. Any problem becomes an
    ``InvalidActionError`` (or a subclass with a more precise code) with a readable message.
    """
    data = dict(data)
    name = str(data.get("type", ""))
    data["type"] = ALIASES.get(name, name)
    if data["type"] not in ACTION_NAMES:
        raise InvalidActionError(
            f"unknown action {name!r}; expected one of: {', '.join(ACTION_NAMES)}"
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise _translate_validation(exc) from exc


def _translate_validation(exc: ValidationError) -> InvalidActionError:
    """Surface our own typed errors raised inside validators; otherwise summarize pydantic's."""
    for err in exc.errors():
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, InvalidActionError):
            return cause
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"][1:]) or "action"
    if first["type"] in {"finite_number"}:
        return InvalidCoordinates(f"{where}: coordinates must be finite numbers")
    return InvalidActionError(f"{where}: {first['msg']}")


# --- keys ---------------------------------------------------------------------------------

_NAMED_KEYS = {
    "Backspace", "Tab", "Enter", "Shift", "Control", "Alt", "Meta", "Escape", "Space",
    "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End",
    "Delete", "Insert", "CapsLock", "ContextMenu", "ControlOrMeta",
    *(f"F{i}" for i in range(1, 13)),
}  # fmt: skip
_KEY_ALIASES = {
    "ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta",
    "win": "Meta", "super": "Meta", "alt": "Alt", "option": "Alt", "shift": "Shift",
    "esc": "Escape", "escape": "Escape", "return": "Enter", "enter": "Enter", "del": "Delete",
    "delete": "Delete", "backspace": "Backspace", "tab": "Tab", "space": "Space",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "pageup": "PageUp", "pagedown": "PageDown", "pgup": "PageUp", "pgdn": "PageDown",
    "home": "Home", "end": "End", "insert": "Insert",
}  # fmt: skip
_KEY_BY_LOWER = {k.lower(): k for k in _NAMED_KEYS} | _KEY_ALIASES


def normalize_keys(keys: str) -> str:
    """``"ctrl+A"`` -> ``"Control+a"``. Raises ``BadKey`` for anything Playwright would reject."""
    stripped = keys.strip()
    if not stripped:
        raise BadKey("no key given")
    parts = ["+"] if stripped == "+" else [p.strip() for p in stripped.split("+")]
    out = []
    for part in parts:
        if len(part) == 1 and part.isprintable():
            out.append(part.lower() if len(parts) > 1 else part)
        elif part.lower() in _KEY_BY_LOWER:
            out.append(_KEY_BY_LOWER[part.lower()])
        else:
            raise BadKey(f"unknown key {part!r} in {keys!r}; use names like Enter, Control+a")
    return "+".join(out)


# --- URLs ---------------------------------------------------------------------------------

_ALLOWED_SCHEMES = {"http", "https"}
_HOST_RE = re.compile(r"^[A-Za-z0-9.\-\[\]:]+$")


def check_url(url: str) -> str:
    """Accept absolute http(s) URLs and ``about:blank``; add ``https://`` to a bare host."""
    value = url.strip()
    if len(value) > MAX_URL_CHARS:
        raise BadUrl(f"URL is {len(value)} characters; the limit is {MAX_URL_CHARS}")
    if value == "about:blank":
        return value
    if "://" not in value and re.match(r"^[\w.-]+\.[a-z]{2,}(/|$)", value, re.I):
        value = "https://" + value
    parts = urlsplit(value)
    if parts.scheme.lower() not in _ALLOWED_SCHEMES:
        raise BadUrl(f"URL {url!r} must start with http:// or https://")
    if not parts.hostname or not _HOST_RE.match(parts.netloc.rsplit("@", 1)[-1]):
        raise BadUrl(f"URL {url!r} has no valid host")
    if any(ch.isspace() for ch in value):
        raise BadUrl(f"URL {url!r} contains whitespace")
    return value


# --- checks that need the current page ----------------------------------------------------


@dataclass(frozen=True)
class ActionContext:
    """What ``check_action`` needs to know about the page the action will run on."""

    viewport_width: int  # CSS pixels; screenshots are taken at this size
    viewport_height: int
    element_ids: frozenset[int] | None = None  # ids of the last observation; None = not known
    tab_count: int = 1


def scale_point(
    x: float, y: float, space: CoordSpace, viewport: tuple[int, int]
) -> tuple[float, float]:
    """The single place where a point becomes viewport pixels (no checks: drawing a recorded
    action uses this too; ``to_viewport_pixels`` checks before acting)."""
    if space is CoordSpace.NORM1000:
        return x * viewport[0] / NORM_RANGE, y * viewport[1] / NORM_RANGE
    return x, y


def to_viewport_pixels(
    x: float, y: float, space: CoordSpace, ctx: ActionContext
) -> tuple[float, float]:
    """A point of an action about to run, in viewport pixels. Checks range and finiteness."""
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidCoordinates(f"coordinates ({x}, {y}) are not finite numbers")
    if space is CoordSpace.NORM1000:
        if not (0 <= x <= NORM_RANGE and 0 <= y <= NORM_RANGE):
            raise InvalidCoordinates(
                f"normalized coordinates ({x:g}, {y:g}) must lie within 0-{NORM_RANGE}"
            )
        return scale_point(x, y, space, (ctx.viewport_width, ctx.viewport_height))
    if not (0 <= x < ctx.viewport_width and 0 <= y < ctx.viewport_height):
        raise InvalidCoordinates(
            f"point ({x:g}, {y:g}) lies outside the {ctx.viewport_width}x{ctx.viewport_height} screenshot"
        )
    return x, y


def check_action(action: Action, ctx: ActionContext) -> Action:
    """Validate what depends on the page; return the action unchanged if it is fine."""
    element = getattr(action, "element", None)
    if element is not None and ctx.element_ids is not None and element not in ctx.element_ids:
        raise UnknownElement(f"there is no element [{element}] on the current page")
    if isinstance(action, _Pointer) and action.has_point():
        assert action.x is not None and action.y is not None
        to_viewport_pixels(action.x, action.y, action.space, ctx)
    if isinstance(action, TabFocus) and action.index >= ctx.tab_count:
        raise BadTab(f"tab {action.index} does not exist; there are {ctx.tab_count} tabs")
    return action


def describe_actions(names: tuple[str, ...] = ACTION_NAMES) -> str:
    """One line per action: name, fields and docstring. Prompt templates embed this text."""
    lines = []
    for cls in ACTION_TYPES:
        name = cls.model_fields["type"].default
        if name not in names:
            continue
        fields = [f for f in cls.model_fields if f not in {"type", "space"}]
        doc = " ".join((cls.__doc__ or "").split())
        lines.append(f"- {name}({', '.join(fields)}): {doc}")
    return "\n".join(lines)
