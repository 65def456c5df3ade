"""Regression tests for what schemathesis found in the server API (issue 13), on a live server.

* a step with neither action nor text (``{}``, ``{"step_index": 0}``) was valid by the spec and
  answered 422: the spec now says "exactly one of" (``oneOf``), and so does the server;
* a body that is not UTF-8, or nested thousands of levels deep, answered an undocumented 400:
  now a documented 422 ``invalid_request``;
* a 405 came without ``Allow``;
* ``"marks": 0`` passed as a boolean (JSON types are now strict, as the spec states them);
* a lone surrogate (``"\\ud800"``) in a final answer made a 500 and dropped the connection.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import jsonschema_rs
import pytest
from pydantic.json_schema import models_json_schema

from webdojo.actions import ACTION_TYPES
from webdojo.asgi import ThreadServer
from webdojo.server.api.app import create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.loader import TaskSet
from webdojo.wire.protocol import (
    CreateSessionRequest,
    FinalStateRequest,
    ObserveRequest,
    StepRequest,
)

JSON = {"content-type": "application/json"}
SESSION_ROUTES = ["step", "observe", "final_state"]


@pytest.fixture(scope="module")
def spec(builtin_tasks: TaskSet) -> dict[str, Any]:
    """The published spec (building it needs no browser)."""
    return create_app(InlinePool(), builtin_tasks).openapi()


def _valid(spec: dict[str, Any], model: str, body: object) -> bool:
    schema = {"$ref": f"#/components/schemas/{model}", "components": spec["components"]}
    return bool(jsonschema_rs.Draft202012Validator(schema).is_valid(body))


# --- the spec alone -----------------------------------------------------------------------


STEP_BODIES = [
    ({}, False),
    ({"step_index": 0}, False),
    ({"step_index": 0, "action": None, "text": "x", "format": "qwen"}, False),
    ({"step_index": 0, "action": {"type": "stop"}, "text": "x", "format": "qwen"}, False),
    ({"step_index": 0, "text": "x"}, False),  # text needs its format
    ({"step_index": 0, "action": {"answer": "42"}}, False),  # an action names its type
    ({"step_index": 0, "action": {"type": "stop"}}, True),
    ({"step_index": 0, "text": 'stop("1")', "format": "funcall"}, True),
]


@pytest.mark.parametrize(("body", "valid"), STEP_BODIES)
def test_the_spec_says_exactly_one_of_action_or_text(
    spec: dict[str, Any], body: dict[str, Any], valid: bool
) -> None:
    assert _valid(spec, "StepRequest", body) is valid
    parsed: StepRequest | None
    try:
        parsed = StepRequest.model_validate_json(json.dumps(body), strict=True)
    except ValueError:
        parsed = None
    assert (parsed is not None) is valid  # the server's own rule agrees with the spec's


def test_the_spec_says_exactly_one_of_task_id_or_start_url(spec: dict[str, Any]) -> None:
    assert not _valid(spec, "CreateSessionRequest", {})
    assert not _valid(spec, "CreateSessionRequest", {"task_id": "a", "start_url": "http://b"})
    assert not _valid(spec, "CreateSessionRequest", {"task_id": None, "start_url": "http://b"})
    assert _valid(
        spec, "CreateSessionRequest", {"task_id": "wiki.skarn-height", "viewport_width": 800}
    )


def test_the_spec_types_are_the_servers(spec: dict[str, Any]) -> None:
    assert not _valid(spec, "ObservationOptions", {"marks": 0})
    assert not _valid(spec, "StepRequest", {"step_index": "0", "action": {"type": "stop"}})
    assert _valid(spec, "StepRequest", {"step_index": 3.0, "action": {"type": "stop"}})


def test_every_route_documents_the_errors_it_can_answer(spec: dict[str, Any]) -> None:
    paths = spec["paths"]
    create = paths["/v1/sessions"]["post"]["responses"]
    assert {"413", "422", "429", "500", "502", "503"} <= set(create)
    for route in SESSION_ROUTES:
        answers = paths[f"/v1/sessions/{{session_id}}/{route}"]["post"]["responses"]
        assert {"404", "409", "410", "413", "422", "500", "502", "503"} <= set(answers), route
    close = paths["/v1/sessions/{session_id}"]["delete"]["responses"]
    assert {"404", "409", "410", "500"} <= set(close) and "422" not in close
    error_body = {"$ref": "#/components/schemas/ErrorBody"}
    health = {"$ref": "#/components/schemas/Health"}
    for path, operations in paths.items():
        for operation in operations.values():
            for status, answer in operation["responses"].items():
                if status >= "400":  # FastAPI's HTTPValidationError is never answered
                    schema = answer["content"]["application/json"]["schema"]
                    # a server that is down still says why, in the health body itself
                    expected = health if (path, status) == ("/v1/health", "503") else error_body
                    assert schema == expected, (path, status)
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_request_schemas_agree_with_fastapis_where_both_publish_one(
    spec: dict[str, Any],
) -> None:
    models = [CreateSessionRequest, StepRequest, ObserveRequest, FinalStateRequest]
    _, defs = models_json_schema(
        [(m, "validation") for m in models], ref_template="#/components/schemas/{model}"
    )
    published = spec["components"]["schemas"]
    actions = {cls.__name__ for cls in ACTION_TYPES}
    for name, schema in defs["$defs"].items():
        got = dict(published[name])
        if name == "CreateSessionRequest":  # the spec's task_id: this server's tasks (TaskId)
            assert got["properties"]["task_id"] == {"$ref": "#/components/schemas/TaskId"}
            got["properties"] = {**got["properties"], "task_id": schema["properties"]["task_id"]}
        if name in actions:  # the spec requires each action's "type" (its union's tag)
            assert "type" in got["required"]
            got["required"] = [f for f in got["required"] if f != "type"]
            if not got["required"]:
                del got["required"]
        assert got == schema, name


# --- the live server ----------------------------------------------------------------------


@pytest.fixture
async def client(app_server: ThreadServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=app_server.url, timeout=60) as c:
        yield c


@pytest.fixture
async def session(client: httpx.AsyncClient, test_site: str) -> AsyncIterator[str]:
    created = await client.post("/v1/sessions", json={"start_url": f"{test_site}/plain.html"})
    assert created.status_code == 201, created.text
    session_id = str(created.json()["session_id"])
    yield session_id
    await client.delete(f"/v1/sessions/{session_id}")


def _code(response: httpx.Response, status: int = 422) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    return str(response.json()["error"]["code"])


@pytest.mark.browser
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_request"),
        ({"step_index": 0}, "invalid_request"),
        ({"step_index": 0, "action": None}, "invalid_action"),  # the action's own code
        ({"step_index": 0, "text": "click(1, 2)"}, "invalid_request"),  # no format
    ],
)
async def test_a_step_without_an_action_is_refused(
    client: httpx.AsyncClient, session: str, body: dict[str, Any], code: str
) -> None:
    response = await client.post(f"/v1/sessions/{session}/step", json=body)
    assert _code(response) == code


@pytest.mark.browser
@pytest.mark.parametrize(
    "raw",
    [
        b'{"step_index": 0, "text": "\xff\xfe", "format": "qwen"}',  # not UTF-8
        b"\xff\xfe{}",
        b"[" * 100_000 + b"]" * 100_000,  # nested far too deep
        b'{"step_index": 0, "action": {"type": "stop", "answer": '
        + b"[" * 5_000
        + b"]" * 5_000
        + b"}}",
        b'{"step_index": 0, "action": {"type": "stop", "answer": "\\ud800"}}',  # lone surrogate
        b'{"step_index": 0, "action": {"type": "stop"}',  # cut short
    ],
    ids=["bad-utf8-string", "bad-utf8-start", "deep", "deep-in-a-field", "surrogate", "cut"],
)
async def test_unreadable_bodies_are_a_documented_422(
    client: httpx.AsyncClient, session: str, spec: dict[str, Any], raw: bytes
) -> None:
    response = await client.post(f"/v1/sessions/{session}/step", content=raw, headers=JSON)
    assert _code(response) == "invalid_request"
    assert "not valid JSON" in response.json()["error"]["message"]
    assert "422" in spec["paths"]["/v1/sessions/{session_id}/step"]["post"]["responses"]


@pytest.mark.browser
async def test_a_lone_surrogate_answer_is_refused_and_the_connection_lives(
    client: httpx.AsyncClient, session: str
) -> None:
    path = f"/v1/sessions/{session}/final_state"
    response = await client.post(path, content=rb'{"answer": "\ud800"}', headers=JSON)
    assert _code(response) == "invalid_request"  # was a 500, and the connection dropped
    fine = await client.post(path, content=rb'{"answer": "\ud83d\ude00"}', headers=JSON)
    assert fine.status_code == 200 and fine.json()["final_state"]["answer"] == "\U0001f600"


@pytest.mark.browser
@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/v1/sessions/abc/step", {"POST"}),
        ("PUT", "/v1/sessions", {"POST"}),
        ("GET", "/v1/sessions/abc", {"DELETE"}),
        ("POST", "/v1/health", {"GET"}),
    ],
)
async def test_405_says_which_methods_are_allowed(
    client: httpx.AsyncClient, method: str, path: str, allow: set[str]
) -> None:
    response = await client.request(method, path)
    assert _code(response, 405) == "invalid_request"
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert allow <= allowed and method not in allowed


@pytest.mark.browser
@pytest.mark.parametrize(
    ("route", "body", "code"),
    [
        ("observe", {"observation": {"marks": 0}}, "invalid_request"),
        ("observe", {"observation": {"screenshot": "yes"}}, "invalid_request"),
        ("observe", {"observation": {"jpeg_quality": "80"}}, "invalid_request"),
        ("step", {"step_index": "0", "action": {"type": "stop"}}, "invalid_request"),
        ("step", {"step_index": 0, "action": {"type": "type", "text": "a", "enter": 1}}, None),
        ("final_state", {"answer": 42}, "invalid_request"),
    ],
)
async def test_json_types_are_strict(
    client: httpx.AsyncClient, session: str, route: str, body: dict[str, Any], code: str | None
) -> None:
    response = await client.post(f"/v1/sessions/{session}/{route}", json=body)
    assert _code(response) == (code or "invalid_action")  # an action keeps the action codes


@pytest.mark.browser
async def test_an_integral_float_is_an_integer(
    client: httpx.AsyncClient, session: str, test_site: str
) -> None:
    step = await client.post(
        f"/v1/sessions/{session}/step",
        json={"step_index": 0.0, "action": {"type": "wait", "seconds": 0}},
    )
    assert step.status_code == 200 and step.json()["step_index"] == 0
    half = await client.post(
        f"/v1/sessions/{session}/observe", json={"observation": {"jpeg_quality": 80.5}}
    )
    assert _code(half) == "invalid_request"


@pytest.mark.browser
@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/msgpack", "application/x-www-form-urlencoded"]
)
async def test_bodies_are_json_only(
    client: httpx.AsyncClient, session: str, content_type: str
) -> None:
    response = await client.post(
        f"/v1/sessions/{session}/observe", content=b"{}", headers={"content-type": content_type}
    )
    assert _code(response) == "invalid_request"
    assert "Content-Type: application/json" in response.json()["error"]["message"]
    vendor = await client.post(
        f"/v1/sessions/{session}/observe",
        content=b"{}",
        headers={"content-type": "application/vnd.webdojo+json; charset=utf-8"},
    )
    assert vendor.status_code == 200


@pytest.mark.browser
async def test_an_optional_body_may_be_empty(client: httpx.AsyncClient, session: str) -> None:
    assert (await client.post(f"/v1/sessions/{session}/observe")).status_code == 200
    assert (await client.post(f"/v1/sessions/{session}/final_state")).status_code == 200
    empty_step = await client.post(f"/v1/sessions/{session}/step")
    assert _code(empty_step) == "invalid_request"
