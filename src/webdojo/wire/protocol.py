"""The wire protocol of ``webdojo serve``, version 1 (all routes under ``/v1``).

Every request and response body is one of these pydantic models; FastAPI publishes them as
OpenAPI at ``/openapi.json``. Outside data, so ``extra="forbid"`` everywhere.

Errors: every non-2xx response has an ``ErrorBody``: a stable ``code`` (see ``webdojo.errors``),
the ``fault`` (agent / env / infra / config) and whether a retry may succeed. Status codes:
422 invalid action or request, 404 unknown session, 409 state error (step after done, wrong
step index), 429 overloaded (with Retry-After), 502/503 infrastructure faults.

Requests are read as JSON in pydantic's strict mode (``server/api/request_body.py``): ``"marks": 0`` is not
a boolean and ``"step_index": "0"`` not an integer. Rules between fields ("exactly one of
action or text") are in the published schema too (``oneOf``), so that what the spec calls valid
is what the server accepts; the fields such a rule is about take no ``null`` on the wire (leave
them out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonDict

from webdojo.actions import Action
from webdojo.observation import ErrorInfo, FinalState, Observation, ObservationOptions
from webdojo.parsing.types import ParseFormat
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult

API_VERSION = "v1"
MAX_BODY_BYTES = 1_000_000  # a step request is a few KB; anything near this is abuse
MAX_LISTED_TASKS = 256  # task ids the spec lists (a few KB); a bigger set: a pattern


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _one_of(*shapes: tuple[str, ...], needs: dict[str, str] | None = None) -> Any:
    """``json_schema_extra`` for a model whose valid bodies have exactly one of these sets of
    fields: the schema's ``oneOf``, one ``required`` list per shape. ``needs``: a field that
    comes only with another (``dependentRequired``); it keeps the shapes disjoint, which a
    shape of two fields would not (``text`` without ``format`` beside an ``action``)."""

    def extra(schema: JsonDict) -> None:
        schema["oneOf"] = [{"required": list(fields)} for fields in shapes]
        if needs:
            schema["dependentRequired"] = {field: [other] for field, other in needs.items()}
        properties = schema["properties"]
        assert isinstance(properties, dict)
        for field in {f for fields in shapes for f in fields} | set((needs or {}).values()):
            prop = properties[field]
            assert isinstance(prop, dict)
            properties[field] = _without_null(prop)

    return extra


def _without_null(prop: JsonDict) -> JsonDict:
    """A nullable property's schema without its ``null`` (and its None default)."""
    prop = {k: v for k, v in prop.items() if k != "default"}
    options = prop.pop("anyOf", None)
    if not isinstance(options, list):
        return prop
    rest = [o for o in options if o != {"type": "null"}]
    if len(rest) == 1 and isinstance(rest[0], dict):
        return {**rest[0], **prop}
    return {**prop, "anyOf": rest}


def _no_null_in_json(value: Any, info: ValidationInfo) -> Any:
    """The fields of a ``oneOf`` rule are left out, not sent as ``null``, on the wire (the
    schema has no null for them); Python callers may still pass None."""
    if value is None and info.mode == "json":
        raise ValueError("leave the field out instead of sending null")
    return value


class CreateSessionRequest(_Wire):
    """Start an episode: a fresh browser context at a task's start page or at a URL (exactly
    one of ``task_id`` or ``start_url``)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=_one_of(("task_id",), ("start_url",))
    )

    # a task of the server's task set; its site is served locally
    task_id: str | None = None  # the spec of a server lists them (``task_id_schema``)
    start_url: str | None = None  # or any URL the server can reach
    observation: ObservationOptions = Field(default_factory=ObservationOptions)
    viewport_width: int = Field(default=1280, ge=100, le=4096)
    viewport_height: int = Field(default=720, ge=100, le=4096)
    seed: int | None = None  # replaces ``{seed}`` in the task's start URL (MiniWoB++ pages)
    client_key: str | None = Field(
        default=None, max_length=200
    )  # the client's episode id, for logs

    _no_null = field_validator("task_id", "start_url", mode="before")(_no_null_in_json)

    @model_validator(mode="after")
    def _one_start(self) -> CreateSessionRequest:
        if (self.task_id is None) == (self.start_url is None):
            raise ValueError("give exactly one of task_id or start_url")
        return self


def task_id_schema(task_ids: Sequence[str]) -> dict[str, Any]:
    """The spec's ``TaskId`` (a create's ``task_id``) for a server of these tasks: their ids as
    an ``enum`` (what a client can check and pick from); for a set too big to list, the shape
    of an id with a few examples, so that the spec stays small. Any other id answers 422
    ``unknown_task``."""
    if len(task_ids) <= MAX_LISTED_TASKS:
        return {
            "type": "string",
            "enum": sorted(task_ids),
            "description": f"one of the {len(task_ids)} tasks of this server's task set",
        }
    return {
        **TypeAdapter(Annotated[str, Task.model_fields["id"]]).json_schema(),
        "examples": list(task_ids[:3]),
        "description": f"the id of one of the {len(task_ids)} tasks of this server's task set "
        "(too many to list here; another id answers 422 unknown_task)",
    }


class SessionCreated(_Wire):
    session_id: str
    observation: Observation
    worker: str  # which worker owns the session (sessions stick to it)
    max_steps: int | None = None  # the task's step cap when created from a task id


class StepRequest(_Wire):
    """One action, given either as an Action or as raw model text plus its format (exactly one
    of ``action`` or ``text`` with ``format``).

    ``step_index`` counts from 0. Re-sending the last step's index returns the same response
    without acting again, which makes a retried request (after a timeout) safe.
    """

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=_one_of(("action",), ("text",), needs={"text": "format"})
    )

    step_index: int = Field(ge=0)
    action: Action | None = None
    text: str | None = Field(default=None, max_length=256_000)
    format: ParseFormat | None = None  # how to read text; required with it
    observation: ObservationOptions | None = None  # None = the options given at creation

    _no_null = field_validator("action", "text", "format", mode="before")(_no_null_in_json)

    @model_validator(mode="after")
    def _one_action(self) -> StepRequest:
        if (self.action is None) == (self.text is None):
            raise ValueError("give exactly one of action or text")
        if self.text is not None and self.format is None:
            raise ValueError("text needs a format (qwen, browseragent, funcall)")
        return self


def _reason_on_wire(reason: EndReason) -> str:
    return _WIRE_SPELLING.get(reason, reason.value)


def _reason_from_wire(value: Any) -> Any:
    return _FROM_WIRE.get(value, value) if isinstance(value, str) else value


# The end reason is ``tasks.episode_rules.EndReason`` here as everywhere; only its spelling on
# the wire differs for one value: the protocol has said "stop" since version 1, the records
# say "stopped".
_WIRE_SPELLING = {EndReason.STOPPED: "stop"}
_FROM_WIRE = {spelled: reason for reason, spelled in _WIRE_SPELLING.items()}
WireEndReason = Annotated[
    EndReason,
    BeforeValidator(_reason_from_wire),
    PlainSerializer(_reason_on_wire, return_type=str),
    WithJsonSchema({"type": "string", "enum": [_reason_on_wire(r) for r in EndReason]}),
]


class StepInfo(_Wire):
    action: Action | None = None  # the action performed (parsed from text if given)
    parse_error: ErrorInfo | None = None  # text that could not be parsed (nothing was done)
    answer: str | None = None  # set when the action was stop
    final_state: FinalState | None = None  # captured when done, for client-side verifiers
    verifier: VerifyResult | None = None  # when created from a task id
    # why done: "stop" | "step_cap" (the task's max_steps) | "done" (the page said its episode
    # was over: Observation.page_done) | "fault" (the page crashed or
    # the session was lost: no final state, no verdict; never score it)
    done_reason: WireEndReason | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


class StepResponse(_Wire):
    step_index: int
    observation: Observation
    done: bool
    info: StepInfo


class ObserveRequest(_Wire):
    observation: ObservationOptions | None = None


class FinalStateRequest(_Wire):
    answer: str | None = None


class FinalStateResponse(_Wire):
    final_state: FinalState
    verifier: VerifyResult | None = None  # when created from a task id


class ErrorBody(_Wire):
    error: ErrorInfo


class WorkerHealth(_Wire):
    """One worker in ``/v1/health``."""

    worker: str
    state: str = Field(
        description='the worker: "ready", "starting", "dead" (being replaced), "retiring" '
        "(replaced after --max-worker-sessions; its sessions finish on it)"
    )
    browser: str = Field(
        description='its browser: "alive", "recycling" (a planned relaunch), "dead", '
        '"relaunching" (after a death), "none" or "unknown"'
    )
    sessions: int


class Health(_Wire):
    """``status``: "ok" when every worker is ready with a live browser (HTTP 200);
    "degraded" when some are not, e.g. right after a browser was killed, until it is
    relaunched (HTTP 200: the server still takes sessions); "down" when none is (HTTP 503)."""

    status: str  # "ok" | "degraded" | "down"
    version: str
    sessions: int
    max_sessions: int
    workers: int
    workers_alive: int
    browsers_alive: int = 0  # workers whose browser is alive
    worker_restarts: int = 0  # workers restarted after a death or a hang, since the start
    workers_retired: int = 0  # workers replaced after --max-worker-sessions, since the start
    by_worker: list[WorkerHealth] = Field(default_factory=list)
