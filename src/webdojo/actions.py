"""The action space: the union of WebGym's, BrowserAgent's and Weblica's.

Each action is a pydantic model whose docstring is its one and only documentation: prompt
templates are generated from these docstrings (``webdojo.action_docs``). ``describe(action)``
renders an action on one line for people.

Targets. Pointer actions (click, double_click, hover, type, scroll) take *either* an element
id (from the accessibility tree or set-of-marks of the current observation) *or* a point
``x, y``. Points come in one of two spaces (``CoordSpace``): screenshot pixels, or 0-1000
normalized coordinates (the Qwen-VL convention WebGym uses). ``scale_point`` is the only
place where one is converted to the other (``to_viewport_pixels`` checks the point first).

Validation happens in two layers:
* construction (pydantic): types, NaN/inf, sizes, enums, key names, URL syntax;
* ``check_action(action, ctx)``: what needs the current page (viewport bounds, known element
  ids, number of tabs). Each failure raises an ``InvalidActionError`` subclass with a stable code.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from webdojo.action_values import check_url, normalize_keys
from webdojo.errors import (
    BadTab,
    InvalidActionError,
    InvalidCoordinates,
    TextTooLong,
    UnknownElement,
)

MAX_TEXT_CHARS = 2_000  # longest string a type action may enter
MAX_ANSWER_CHARS = 10_000  # longest final answer
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
        """A compact one-line rendering, used in history text and logs: ``describe(self)``
        without the coordinate space."""
        return describe(self, show_space=False)


# A pointer action's targets, as JSON Schema (a null field counts as left out): the rule of
# ``_require_one_target`` in the published schemas, so that a spec-valid action is a valid one.
_ELEMENT_TARGET: dict[str, Any] = {
    "required": ["element"],
    "properties": {"element": {"type": "integer"}, "x": {"type": "null"}, "y": {"type": "null"}},
}
_POINT_TARGET: dict[str, Any] = {
    "required": ["x", "y"],
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "element": {"type": "null"}},
}
_NO_TARGET: dict[str, Any] = {
    "properties": {"element": {"type": "null"}, "x": {"type": "null"}, "y": {"type": "null"}}
}


def _target_schema(schema: dict[str, Any], cls: type[Any]) -> None:
    """``json_schema_extra`` of pointer actions: ``anyOf`` their targets (disjoint shapes)."""
    targets = [_ELEMENT_TARGET, _POINT_TARGET]
    if cls.target_optional:
        targets.append(_NO_TARGET)
    schema["anyOf"] = copy.deepcopy(targets)


class _Pointer(_Action):
    """Shared target fields: exactly one of ``element`` or ``x``+``y`` (``type`` and ``scroll``
    also allow neither)."""

    model_config = ConfigDict(json_schema_extra=_target_schema)

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


# --- checks that need the current page ----------------------------------------------------


@dataclass(frozen=True)
class ActionContext:
    """What ``check_action`` needs to know about the page the action will run on."""

    viewport_width: int  # CSS pixels; screenshots are taken at this size
    viewport_height: int
    element_ids: frozenset[int] | None = None  # ids of the last observation; None = not known
    tab_count: int = 1


def scale_point(
    x: float, y: float, space: CoordSpace | str | None, width: float, height: float
) -> tuple[float, float]:
    """The single place where a point becomes viewport pixels: a 0-1000 point is scaled to a
    ``width`` x ``height`` viewport, a pixel point is returned as it is. No checks: the viewer
    draws recorded actions with it; ``to_viewport_pixels`` checks first."""
    if space == CoordSpace.NORM1000:
        return x * width / NORM_RANGE, y * height / NORM_RANGE
    return x, y


def to_viewport_pixels(
    x: float, y: float, space: CoordSpace, ctx: ActionContext
) -> tuple[float, float]:
    """A point in viewport pixels (``scale_point``), after checking range and finiteness."""
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidCoordinates(f"coordinates ({x}, {y}) are not finite numbers")
    if space is CoordSpace.NORM1000:
        if not (0 <= x <= NORM_RANGE and 0 <= y <= NORM_RANGE):
            raise InvalidCoordinates(
                f"normalized coordinates ({x:g}, {y:g}) must lie within 0-{NORM_RANGE}"
            )
        return scale_point(x, y, space, ctx.viewport_width, ctx.viewport_height)
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


# --- actions as text, for people ----------------------------------------------------------


def describe(action: _Action | Mapping[str, Any] | None, *, show_space: bool = True) -> str:
    """An action on one line for people, such as ``click(element=5)`` or ``type(text='lamp',
    enter=True)``: the viewer and the report show it, and ``action.describe()`` (logs, error
    messages, the text of scripted policies) is the same without the coordinate space.

    ``action`` is an action or one as the run store records it (a dict); None, or anything
    else, is a step whose model text could not be parsed. A 0-1000 point says so
    (``space='norm1000'``) when ``show_space``; None fields are left out."""
    if isinstance(action, _Action):
        data = action.model_dump()
    elif isinstance(action, Mapping):
        data = dict(action)
    else:
        return "(no action: the model's text could not be parsed)"
    fields = {k: v for k, v in data.items() if k not in ("type", "space") and v is not None}
    if show_space and data.get("space") == CoordSpace.NORM1000 and "x" in fields:
        fields["space"] = "norm1000"
    args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return f"{data.get('type', '?')}({args})"
