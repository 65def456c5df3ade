"""Properties of the action space (``webdojo.actions``).

* an action that validates serializes (Python dict or JSON) and validates again to itself;
* ``describe`` never raises, whatever it is given;
* validation refuses bad input only with an ``InvalidActionError`` (or a subclass);
* 0-1000 coordinates scale to pixels and back within a pixel.
"""

from __future__ import annotations

from typing import Any

from _prop_strategies import actions, raw_actions
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from webdojo.actions import (
    NORM_RANGE,
    Action,
    ActionContext,
    CoordSpace,
    action_from_dict,
    describe,
    scale_point,
    to_viewport_pixels,
)
from webdojo.errors import InvalidActionError, InvalidCoordinates

ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


@given(actions())
def test_an_action_round_trips_through_dict_and_json(action: Action) -> None:
    assert action_from_dict(action.model_dump()) == action
    assert action_from_dict(action.model_dump(mode="json")) == action
    assert ADAPTER.validate_json(action.model_dump_json()) == action
    assert ADAPTER.validate_json(action.model_dump_json(), strict=True) == action  # the wire


@given(raw_actions())
def test_validation_refuses_only_with_action_errors(raw: dict[str, Any]) -> None:
    try:
        action = action_from_dict(raw)
    except InvalidActionError:
        return
    # what validated is stable: once normalized (URL, keys, capped wait), it stays the same
    assert action_from_dict(action.model_dump()) == action
    assert ADAPTER.validate_json(action.model_dump_json()) == action


@given(st.one_of(actions(), raw_actions(), st.none(), st.integers(), st.text()))
def test_describe_never_raises(thing: Any) -> None:
    for show_space in (True, False):
        line = describe(thing, show_space=show_space)
        assert isinstance(line, str) and line
    if not isinstance(thing, dict | type(None) | int | str):
        assert thing.describe() == describe(thing, show_space=False)


viewports = st.tuples(st.integers(100, 4096), st.integers(100, 4096))
norm = st.floats(0, NORM_RANGE)


@given(norm, norm, viewports)
def test_normalized_points_scale_into_the_viewport_and_back(
    x: float, y: float, size: tuple[int, int]
) -> None:
    width, height = size
    ctx = ActionContext(viewport_width=width, viewport_height=height)
    px, py = to_viewport_pixels(x, y, CoordSpace.NORM1000, ctx)
    assert (px, py) == scale_point(x, y, CoordSpace.NORM1000, width, height)
    assert 0 <= px <= width and 0 <= py <= height
    back_x, back_y = px * NORM_RANGE / width, py * NORM_RANGE / height
    assert abs(back_x - x) * width / NORM_RANGE < 1 and abs(back_y - y) * height / NORM_RANGE < 1
    # a pixel point is left alone
    assert scale_point(px, py, CoordSpace.PIXEL, width, height) == (px, py)


@given(st.integers(0, 4095), st.integers(0, 4095), viewports)
def test_a_pixel_written_in_0_1000_lands_within_a_pixel_at_1000_wide(
    px: int, py: int, size: tuple[int, int]
) -> None:
    """A pixel point written in 0-1000 units to one decimal is read back within a pixel (on
    viewports up to 4096 wide); in whole units, within half a grid step (width / 2000)."""
    width, height = size
    px, py = px % width, py % height
    nx, ny = round(px * NORM_RANGE / width, 1), round(py * NORM_RANGE / height, 1)
    x, y = scale_point(nx, ny, CoordSpace.NORM1000, width, height)
    assert abs(x - px) <= 1 and abs(y - py) <= 1
    wx, wy = round(px * NORM_RANGE / width), round(py * NORM_RANGE / height)
    x, y = scale_point(wx, wy, CoordSpace.NORM1000, width, height)
    assert abs(x - px) <= width / NORM_RANGE / 2 + 1e-9
    assert abs(y - py) <= height / NORM_RANGE / 2 + 1e-9


@given(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(CoordSpace),
    viewports,
)
def test_any_point_is_pixels_or_invalid_coordinates(
    x: float, y: float, space: CoordSpace, size: tuple[int, int]
) -> None:
    ctx = ActionContext(viewport_width=size[0], viewport_height=size[1])
    try:
        px, py = to_viewport_pixels(x, y, space, ctx)
    except InvalidCoordinates:
        return
    assert 0 <= px <= size[0] and 0 <= py <= size[1]
