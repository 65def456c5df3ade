"""The published spec says what the server accepts, no more (issue 32): a pointer action needs
its target (a click with neither element nor point was valid by the spec, and refused by the
server), and ``task_id`` is one of the served tasks, not any string. The spec alone, with the
server's own body reader as the judge: no browser."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
from fastapi.exceptions import RequestValidationError
from hypothesis import HealthCheck, Phase, given, settings

from webdojo.errors import WebdojoError
from webdojo.server.api import request_body
from webdojo.server.api.app import create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.wire.protocol import (
    MAX_LISTED_TASKS,
    CreateSessionRequest,
    FinalStateRequest,
    ObserveRequest,
    StepInfo,
    StepRequest,
)


@pytest.fixture(scope="module")
def spec(builtin_tasks: TaskSet) -> dict[str, Any]:
    return create_app(InlinePool(), builtin_tasks).openapi()


def spec_accepts(spec: dict[str, Any], model: str, body: object) -> bool:
    schema = {"$ref": f"#/components/schemas/{model}", "components": spec["components"]}
    return bool(jsonschema_rs.Draft202012Validator(schema).is_valid(body))


def server_accepts(model: type[Any], body: object) -> bool:
    """What the routes do with a body: ``request_body.parse``, strict JSON."""
    try:
        request_body.parse(model, json.dumps(body).encode(), "application/json", required=True)
    except (RequestValidationError, WebdojoError):
        return False
    return True


ACTIONS = [
    ({"type": "click"}, False),  # no target: the server refuses it, so must the spec
    ({"type": "double_click"}, False),
    ({"type": "hover", "space": "norm1000"}, False),
    ({"type": "click", "x": 10}, False),  # half a point
    ({"type": "click", "y": 10, "element": 2}, False),
    ({"type": "click", "element": 2, "x": 1, "y": 2}, False),  # both targets
    ({"type": "click", "element": None, "x": None, "y": None}, False),
    ({"type": "click", "element": 2}, True),
    ({"type": "click", "x": 1, "y": 2.5}, True),
    ({"type": "click", "element": 2, "x": None, "y": None}, True),  # model_dump() sends nulls
    ({"type": "hover", "x": 500, "y": 500, "space": "norm1000", "element": None}, True),
    ({"type": "scroll", "direction": "down"}, True),  # the page: no target needed
    ({"type": "scroll", "direction": "down", "x": 3}, False),
    ({"type": "type", "text": "lamp"}, True),  # into the focused element
    ({"type": "type", "text": "lamp", "element": 4, "x": 1, "y": 1}, False),
    ({"type": "type", "text": "lamp", "element": 4, "enter": True}, True),
    ({"type": "select", "element": 1, "option": "a"}, True),
    ({"type": "stop"}, True),
]


@pytest.mark.parametrize(("action", "valid"), ACTIONS, ids=[json.dumps(a) for a, _ in ACTIONS])
def test_the_spec_requires_the_target_the_server_requires(
    spec: dict[str, Any], action: dict[str, Any], valid: bool
) -> None:
    body = {"step_index": 0, "action": action}
    assert spec_accepts(spec, "StepRequest", body) is valid
    assert server_accepts(StepRequest, body) is valid


def test_task_id_lists_the_served_tasks(spec: dict[str, Any], builtin_tasks: TaskSet) -> None:
    schemas = spec["components"]["schemas"]
    assert schemas["CreateSessionRequest"]["properties"]["task_id"] == {
        "$ref": "#/components/schemas/TaskId"
    }
    ids = [t.id for t in builtin_tasks.tasks]
    assert schemas["TaskId"]["enum"] == sorted(ids)
    assert spec_accepts(spec, "CreateSessionRequest", {"task_id": ids[0]})
    assert not spec_accepts(spec, "CreateSessionRequest", {"task_id": "no.such-task"})


def test_a_task_set_too_big_to_list_gets_the_shape_of_an_id() -> None:
    tasks = load_spec(f"family:shop-cart-pair:{MAX_LISTED_TASKS + 1}@0")
    spec = create_app(InlinePool(), tasks).openapi()
    task_id = spec["components"]["schemas"]["TaskId"]
    assert "enum" not in task_id and task_id["examples"] == [t.id for t in tasks.tasks[:3]]
    assert str(MAX_LISTED_TASKS + 1) in task_id["description"]
    assert spec_accepts(spec, "CreateSessionRequest", {"task_id": tasks.tasks[-1].id})
    assert not spec_accepts(spec, "CreateSessionRequest", {"task_id": "no spaces in ids"})
    assert len(json.dumps(task_id)) < 500  # the spec stays small


BODIES = [
    ("/v1/sessions", CreateSessionRequest),
    ("/v1/sessions/{session_id}/step", StepRequest),
    ("/v1/sessions/{session_id}/observe", ObserveRequest),
    ("/v1/sessions/{session_id}/final_state", FinalStateRequest),
]


@pytest.mark.parametrize(("path", "model"), BODIES, ids=[p for p, _ in BODIES])
def test_every_body_valid_by_the_spec_is_read_by_the_server(
    spec: dict[str, Any], builtin_tasks: TaskSet, path: str, model: type[Any]
) -> None:
    """schemathesis' positive bodies, read as the routes read them: none is refused. (A
    target-less click, or an unknown task id, was a spec-valid body the server refused.)"""
    operation = schemathesis.openapi.from_dict(spec)[path]["POST"]
    tasks = {t.id for t in builtin_tasks.tasks}

    @settings(
        max_examples=60,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def run(case: schemathesis.Case) -> None:
        if not isinstance(case.body, dict):
            return  # an optional body left out
        assert server_accepts(model, case.body), case.body
        if "task_id" in case.body:
            assert case.body["task_id"] in tasks

    run()


def test_the_end_reason_is_one_type_spelled_as_version_1_spells_it(spec: dict[str, Any]) -> None:
    """``done_reason`` is ``EndReason`` in Python, as in records; on the wire "stopped" keeps
    its version-1 spelling "stop", and the spec lists exactly the spellings sent."""
    info = StepInfo(done_reason=EndReason.STOPPED, action={"type": "stop", "answer": "42"})
    wire = info.model_dump(mode="json")
    assert wire["done_reason"] == "stop" and wire["action"]["type"] == "stop"
    back = StepInfo.model_validate_json(info.model_dump_json())
    assert back.done_reason is EndReason.STOPPED and back.action == info.action
    schema = spec["components"]["schemas"]["StepInfo"]["properties"]["done_reason"]
    assert json.dumps(schema).count('"stop"') == 1
    for reason in EndReason:
        sent = StepInfo(done_reason=reason).model_dump(mode="json")["done_reason"]
        assert spec_accepts(spec, "StepInfo", {"done_reason": sent})
    assert not spec_accepts(spec, "StepInfo", {"done_reason": "stopped"})
