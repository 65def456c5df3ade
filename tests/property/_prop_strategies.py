"""hypothesis strategies for webdojo's actions and wire models, shared by the property tests.

``actions(fmt)`` makes valid actions a format can express (any action when ``fmt`` is None);
``raw_actions()`` makes action-shaped dicts of any quality, for validation; the ``*_models``
make requests and responses of the wire protocol.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

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
from webdojo.observation import (
    AxTreeMode,
    Box,
    DownloadInfo,
    Element,
    ErrorInfo,
    FinalState,
    ImageFormat,
    Observation,
    ObservationOptions,
    Tab,
)
from webdojo.parsing import ParseFormat
from webdojo.wire.protocol import (
    CreateSessionRequest,
    FinalStateRequest,
    FinalStateResponse,
    Health,
    ObserveRequest,
    SessionCreated,
    StepInfo,
    StepRequest,
    StepResponse,
)

texts = st.text(max_size=30)
finite = st.floats(allow_nan=False, allow_infinity=False)
KEYS = ["Enter", "Control+a", "shift+Tab", "ArrowDown", "F5", "a", "+", "ctrl+shift+T", "esc"]
URLS = ["https://example.com/", "http://127.0.0.1:8000/a?b=[1]", "example.org/x", "about:blank"]


def points(space: CoordSpace) -> st.SearchStrategy[dict[str, Any]]:
    top = 1000 if space is CoordSpace.NORM1000 else 5000
    coordinate = st.integers(0, top) | st.floats(0, top)
    return st.fixed_dictionaries({"x": coordinate, "y": coordinate, "space": st.just(space)})


def _targets(
    fmt: ParseFormat | None, space: CoordSpace, optional: bool
) -> st.SearchStrategy[dict[str, Any]]:
    element = st.fixed_dictionaries({"element": st.integers(0, 10_000)})
    options = {
        None: [element, points(space)],
        ParseFormat.QWEN: [points(space)],
        ParseFormat.BROWSERAGENT: [element],
        ParseFormat.FUNCALL: [element, points(space)],
    }[fmt]
    if optional and fmt is not ParseFormat.BROWSERAGENT:
        options = [*options, st.just({})]
    return st.one_of(*options)


def actions(
    fmt: ParseFormat | None = None, space: CoordSpace = CoordSpace.PIXEL
) -> st.SearchStrategy[Action]:
    """Valid actions; with a format, only those it can write (its docstring in parsing)."""

    def pointer(cls: type[Any], optional: bool = False, **fields: Any) -> st.SearchStrategy[Any]:
        return st.builds(
            lambda target, extra: cls(**target, **extra),
            _targets(fmt, space, optional),
            st.fixed_dictionaries(fields),
        )

    scroll_amount = (
        st.none() if fmt is ParseFormat.BROWSERAGENT else st.none() | st.integers(1, 20_000)
    )
    kinds = [
        pointer(Click),
        pointer(Hover),
        pointer(Type, optional=True, text=texts, enter=st.booleans()),
        st.builds(Press, keys=st.sampled_from(KEYS)),
        st.builds(Goto, url=st.sampled_from(URLS)),
        st.builds(GoBack),
        st.builds(GoForward),
        st.builds(NewTab, url=st.none() | st.sampled_from(URLS)),
        st.builds(TabFocus, index=st.integers(0, 50)),
        st.builds(CloseTab),
        st.builds(Stop, answer=texts),
    ]
    if fmt is ParseFormat.BROWSERAGENT:
        kinds.append(st.builds(Scroll, direction=st.sampled_from(["up", "down"])))
    else:
        kinds += [
            pointer(DoubleClick),
            st.builds(Wait, seconds=st.floats(0, 10)),
            pointer(
                Scroll,
                optional=True,
                direction=st.sampled_from(["up", "down", "left", "right"]),
                amount=scroll_amount,
            ),
        ]
    if fmt is not ParseFormat.QWEN:
        kinds.append(st.builds(Select, element=st.integers(0, 500), option=texts))
    return st.one_of(*kinds)


# --- anything shaped like an action -------------------------------------------------------

FIELDS = [
    "element", "x", "y", "space", "text", "enter", "direction", "amount", "option", "keys",
    "url", "index", "seconds", "answer",
]  # fmt: skip
jsonish = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5000),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
    st.sampled_from(["pixel", "norm1000", "up", "left", *KEYS, *URLS]),
    st.lists(st.integers(), max_size=2),
)


def raw_actions() -> st.SearchStrategy[dict[str, Any]]:
    names = [*ACTION_NAMES, *ALIASES, "", "bogus"]
    return st.fixed_dictionaries(
        {"type": st.sampled_from(names)}, optional=dict.fromkeys(FIELDS, jsonish)
    )


# --- the wire -----------------------------------------------------------------------------

options = st.builds(
    ObservationOptions,
    screenshot=st.booleans(),
    image_format=st.sampled_from(ImageFormat),
    jpeg_quality=st.integers(1, 100),
    axtree=st.sampled_from(AxTreeMode),
    elements=st.booleans(),
    marks=st.booleans(),
)
# JSON values both transports carry alike (plain msgpack has no integers past 64 bits, and JSON
# writes NaN and infinities as null; test_prop_wire covers the large integers)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | finite | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=10,
)
error_infos = st.builds(
    ErrorInfo,
    code=st.sampled_from(["parse_error", "invalid_action", "navigation_timeout"]),
    fault=st.sampled_from(["agent", "env", "infra", "config"]),
    message=texts,
    retryable=st.booleans(),
    details=st.none() | st.dictionaries(texts, json_values, max_size=3),
)
boxes = st.builds(Box, x=finite, y=finite, width=finite, height=finite)
elements = st.builds(
    Element,
    id=st.integers(0, 10_000),
    role=texts,
    name=texts,
    tag=texts,
    box=boxes,
    in_viewport=st.booleans(),
    html_id=st.none() | texts,
    value=st.none() | texts,
    checked=st.none() | st.booleans(),
    options=st.none() | st.lists(texts, max_size=3),
)
tabs = st.builds(Tab, index=st.integers(0, 20), url=texts, title=texts, active=st.booleans())
timings = st.dictionaries(texts, finite, max_size=3)
downloads = st.builds(
    DownloadInfo,
    name=texts,
    url=texts,
    bytes=st.integers(0, 2**40),
    error=st.none() | error_infos,
)
observations = st.builds(
    Observation,
    url=texts,
    title=texts,
    tabs=st.lists(tabs, max_size=3),
    viewport_width=st.integers(100, 4096),
    viewport_height=st.integers(100, 4096),
    screenshot=st.none() | st.binary(max_size=64),
    image_format=st.sampled_from(ImageFormat),
    axtree=st.none() | texts,
    elements=st.none() | st.lists(elements, max_size=3),
    dialogs=st.lists(texts, max_size=2),
    last_error=st.none() | error_infos,
    page_done=st.booleans(),
    timings_ms=timings,
    downloads=st.lists(downloads, max_size=2),
)
final_states = st.builds(
    FinalState,
    url=texts,
    title=texts,
    storage=st.dictionaries(texts, json_values, max_size=3),
    text=texts,
    answer=st.none() | texts,
    crashed=st.booleans(),
)
verdicts = st.none() | st.fixed_dictionaries(
    {"passed": st.booleans(), "reasons": st.lists(texts, max_size=2)}
)
step_infos = st.builds(
    StepInfo,
    action=st.none() | actions().map(lambda a: a.model_dump(mode="json")),
    parse_error=st.none() | error_infos,
    answer=st.none() | texts,
    final_state=st.none() | final_states,
    verifier=verdicts,
    done_reason=st.none() | st.sampled_from(["stop", "step_cap", "done", "fault"]),
    timings_ms=timings,
)
RESPONSES: dict[type[Any], st.SearchStrategy[Any]] = {
    StepResponse: st.builds(
        StepResponse,
        step_index=st.integers(0, 10_000),
        observation=observations,
        done=st.booleans(),
        info=step_infos,
    ),
    SessionCreated: st.builds(
        SessionCreated,
        session_id=texts,
        observation=observations,
        worker=texts,
        max_steps=st.none() | st.integers(1, 100),
    ),
    Observation: observations,
    FinalStateResponse: st.builds(FinalStateResponse, final_state=final_states, verifier=verdicts),
    Health: st.builds(
        Health,
        status=st.sampled_from(["ok", "degraded"]),
        version=texts,
        sessions=st.integers(0, 1000),
        max_sessions=st.integers(0, 1000),
        workers=st.integers(0, 64),
        workers_alive=st.integers(0, 64),
    ),
}


def _step_request(index: int, how: Any, observation: Any) -> StepRequest:
    if isinstance(how, tuple):
        return StepRequest(step_index=index, text=how[0], format=how[1], observation=observation)
    return StepRequest(step_index=index, action=how, observation=observation)


REQUESTS: dict[type[Any], st.SearchStrategy[Any]] = {
    StepRequest: st.builds(
        _step_request,
        st.integers(0, 2**53),
        actions() | st.tuples(st.text(max_size=200), st.sampled_from(ParseFormat)),
        st.none() | options,
    ),
    CreateSessionRequest: st.builds(
        lambda start, obs, w, h, seed, key: CreateSessionRequest(
            **start, observation=obs, viewport_width=w, viewport_height=h, seed=seed, client_key=key
        ),
        st.fixed_dictionaries({"task_id": texts}) | st.fixed_dictionaries({"start_url": texts}),
        options,
        st.integers(100, 4096),
        st.integers(100, 4096),
        st.none() | st.integers(-(2**63), 2**63 - 1),
        st.none() | st.text(max_size=200),
    ),
    ObserveRequest: st.builds(ObserveRequest, observation=st.none() | options),
    FinalStateRequest: st.builds(FinalStateRequest, answer=st.none() | texts),
}


def same_floats(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))
