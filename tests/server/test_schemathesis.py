"""schemathesis against the server's own OpenAPI spec, on a live server with a real Chromium.

Every operation of ``/openapi.json`` gets a bounded number of generated requests, valid by the
spec (positive) and invalid (negative), derandomized so that a run is the same every time.
Session routes run against a live session (its id put into the path; a step's index set to the
one expected now and then, so that steps act). What each response must satisfy:

* no 5xx (``not_a_server_error``);
* its status is documented for the operation, its content type is one the operation lists,
  its body and headers match the documented schema;
* every 4xx body is an ``ErrorBody`` whose code is one of ``webdojo.errors``' stable codes.

The browser reaches nothing but loopback: its proxy is a closed port on 127.0.0.1 (Chromium
sends loopback traffic direct), so a generated ``goto('https://...')`` fails at once, locally.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import requests
import schemathesis
from _pool_fixtures import FAST
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from webdojo.asgi import ThreadServer
from webdojo.browser.chromium import BrowserConfig
from webdojo.errors import WebdojoError
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.server.worker.config import WorkerConfig
from webdojo.tasks.loader import TaskSet
from webdojo.wire.transport import MSGPACK

pytestmark = pytest.mark.browser

# every non-loopback request goes to a proxy that is not there (port 9: discard, closed here)
OFFLINE = ("--proxy-server=http://127.0.0.1:9",)
EXAMPLES = {"positive": 15, "negative": 6}  # per operation (the suite runs on 2 cores)
FUZZ = settings(
    derandomize=True,  # the same cases on every run
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failing case is reported as is
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
TASK = "wiki.skarn-height"  # a builtin task, served by the app's own site server
OPERATIONS = [
    ("POST", "/v1/sessions"),
    ("POST", "/v1/sessions/{session_id}/step"),
    ("POST", "/v1/sessions/{session_id}/observe"),
    ("POST", "/v1/sessions/{session_id}/final_state"),
    ("DELETE", "/v1/sessions/{session_id}"),
    ("GET", "/v1/health"),
    ("GET", "/metrics"),
]
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


def _codes(cls: type[WebdojoError] = WebdojoError) -> set[str]:
    return {cls.code}.union(*(_codes(sub) for sub in cls.__subclasses__()))


STABLE_CODES = frozenset(_codes())


def error_has_stable_code(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 4xx answers an ``ErrorBody`` with one of webdojo's stable error codes."""
    if not 400 <= response.status_code < 500:
        return None
    code = response.json()["error"]["code"]
    assert code in STABLE_CODES, f"{response.status_code} with unknown error code {code!r}"
    return True


class Live:
    """The server under test and one open session, replaced when it ends (a stop, the step
    cap, a close)."""

    def __init__(self, url: str, start_url: str) -> None:
        self.url = url
        self.start_url = start_url
        self.http = requests.Session()
        self.session_id = ""
        self.next_index = 0
        self.turns = 0

    def open(self) -> str:
        response = self.http.post(f"{self.url}/v1/sessions", json={"start_url": self.start_url})
        assert response.status_code == 201, response.text
        return str(response.json()["session_id"])

    def turn(self) -> bool:
        self.turns += 1
        return self.turns % 2 == 0

    def session(self) -> str:
        if not self.session_id:
            self.session_id, self.next_index = self.open(), 0
        return self.session_id

    def retire(self) -> None:
        if self.session_id:
            self.http.delete(f"{self.url}/v1/sessions/{self.session_id}")
        self.session_id = ""


def _prepare(live: Live, case: schemathesis.Case, method: str, path: str) -> None:
    """Point a generated case at the live session (or, to close, at a session of its own)."""
    body = case.body if isinstance(case.body, dict) else None
    if live.turn() and method == "POST":
        case.headers = {**(case.headers or {}), "accept": MSGPACK}  # the binary transport too
    if method == "DELETE":
        case.path_parameters = {"session_id": live.open()}
        return
    if body is not None and path == "/v1/sessions" and live.turns % 3:
        # every other create asks for something that exists, so that some succeed
        if "task_id" in body:
            body["task_id"] = TASK
        if "start_url" in body:
            body["start_url"] = live.start_url
    if "session_id" in (case.path_parameters or {}):
        case.path_parameters = {"session_id": live.session()}
    if body is not None and path.endswith("/step"):
        index = body.get("step_index")
        if isinstance(index, int) and index % 2 == 0:
            body["step_index"] = live.next_index  # half the steps act
        action = body.get("action")
        if isinstance(action, dict) and action.get("type") == "wait":
            action["seconds"] = 0  # a wait sleeps up to 10 s


def _after(live: Live, case: schemathesis.Case, path: str, response: Any) -> None:
    """Keep the live session usable, and close what the case opened."""
    if path == "/v1/sessions" and response.status_code == 201:
        live.http.delete(f"{live.url}/v1/sessions/{response.json()['session_id']}")
    if path.endswith("/step") and response.status_code == 200:
        body = _payload(response)
        if body["done"]:
            live.retire()
        else:
            live.next_index = body["step_index"] + 1
    if 400 <= response.status_code < 600 and "{session_id}" in path:
        error = response.json()["error"]
        if error["code"] in _GONE or "done_at" in (error.get("details") or {}):
            live.retire()  # closed, expired, lost or over: the next case gets a fresh one


def _payload(response: Any) -> dict[str, Any]:
    """A JSON or msgpack body (schemathesis keeps header values as lists)."""
    media = str(response.headers.get("content-type", [""])[0])
    if media.startswith(MSGPACK):
        return dict(msgpack.unpackb(response.content))
    return dict(response.json())


_GONE = {"session_closed", "session_expired", "session_lost", "unknown_session"}


@pytest.fixture(scope="module")
def live(builtin_tasks: TaskSet, test_site: str) -> Iterator[Live]:
    pool = InlinePool(WorkerConfig(browser=BrowserConfig(extra_args=OFFLINE)))
    app = create_app(
        pool, builtin_tasks, ServerSettings(max_sessions=4, session=FAST.allowing(test_site))
    )
    with ThreadServer(app) as server:
        state = Live(server.url, f"{test_site}/counter.html")
        yield state
        state.retire()
        state.http.close()


@pytest.fixture(scope="module")
def schema(live: Live) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{live.url}/openapi.json")


def test_the_fuzzed_operations_are_all_of_the_spec(schema: schemathesis.BaseSchema) -> None:
    spec = schema.raw_schema["paths"]
    published = {(m.upper(), p) for p, ops in spec.items() for m in ops}
    assert published == set(OPERATIONS)


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_operation_keeps_to_the_spec(
    live: Live, schema: schemathesis.BaseSchema, method: str, path: str, mode: str
) -> None:
    operation = schema[path][method]
    if mode == "negative" and "requestBody" not in operation.definition.raw:
        pytest.skip("nothing to make invalid: no body, and any string is a valid id or header")
    strategy = operation.as_strategy(generation_mode=schemathesis.GenerationMode(mode))

    @settings(FUZZ, max_examples=EXAMPLES[mode])
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        _prepare(live, case, method, path)
        response = case.call(session=live.http)
        case.validate_response(response, checks=CHECKS, additional_checks=[error_has_stable_code])
        _after(live, case, path, response)
        statuses[response.status_code] += 1

    statuses: Counter[int] = Counter()
    run()
    if mode == "positive":  # the fuzz reached the browser, not only the validation
        assert any(200 <= status < 300 for status in statuses), statuses


@pytest.fixture(scope="module")
def locked(builtin_tasks: TaskSet) -> Iterator[str]:
    """A server with a bearer token and a pool that never starts (no request gets that far)."""
    settings = ServerSettings(token="fuzz-token-0123456789", manage_pool=False)
    with ThreadServer(create_app(InlinePool(), builtin_tasks, settings)) as server:
        yield server.url


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_without_the_token_every_answer_is_documented(locked: str, method: str, path: str) -> None:
    schema = schemathesis.openapi.from_dict(
        requests.get(f"{locked}/openapi.json", headers=_TOKEN).json()
    )
    operation = schema[path][method]
    statuses: Counter[int] = Counter()
    # This pool never starts, so health honestly answers "down" (503, documented): the one
    # 5xx that is right here.
    checks = [c for c in CHECKS if c is not not_a_server_error] if path == "/v1/health" else CHECKS

    @settings(FUZZ, max_examples=5)
    @given(case=operation.as_strategy())
    def run(case: schemathesis.Case) -> None:
        response = case.call(base_url=locked)
        case.validate_response(response, checks=checks, additional_checks=[error_has_stable_code])
        statuses[response.status_code] += 1

    run()
    assert set(statuses) == ({503} if path == "/v1/health" else {401}), statuses


_TOKEN = {"authorization": "Bearer fuzz-token-0123456789"}
