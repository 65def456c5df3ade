"""OpenEnv's WebSocket protocol on webdojo's server: ``/ws`` with reset, step, state and close.

OpenEnv (``openenv-core``, the protocol TRL's environments speak) drives an environment over one
WebSocket per episode stream; its ``EnvClient`` (or ``GenericEnvClient``) works against this
route unmodified. Each connection holds at most one webdojo session at a time, opened and
driven through ``SessionService`` like any HTTP client's. The server does not import
``openenv-core``: the protocol is small and is spelled here.

Messages (JSON text; every one is an object with ``type``)::

    client -> server                              server -> client
    {"type": "reset", "data": {task_id, seed,     {"type": "observation", "data":
       episode_id, observation, viewport_*}}         {"observation": {...}, "reward", "done"}}
    {"type": "step", "data": <action JSON> |      the same
       {"text": ..., "format": ...}}
    {"type": "state"}                             {"type": "state", "data": {"episode_id",
                                                     "step_count", "done", "session_id",
                                                     "task_id", "max_steps"}}
    {"type": "close"}                             (the session and the socket are closed)
    anything refused                              {"type": "error", "data": {"message",
                                                     "code", "error": {webdojo ErrorInfo}}}

``observation`` is webdojo's ``Observation`` with the screenshot as a standard base64 JPEG
string, plus ``info`` (the step's ``StepInfo``; null after reset). ``reward`` is the verifier's
verdict (1.0 or 0.0) when it ran, else null: a fault ends the episode (``done``,
``info.done_reason == "fault"``, the code in ``observation.last_error``) with no reward, never 0.
``code`` is one of OpenEnv's codes (``OpenEnvCode``); ``error.code`` is webdojo's stable one.

Every message is at most ``max_message_bytes`` (1,000,000 by default, under the 1 MiB that
``websockets`` clients accept unless told otherwise): a bigger incoming one is refused, a reply
that would be bigger is replaced by an error saying what to ask for instead (the step was
taken). With a bearer token the handshake must carry it: ``Authorization: Bearer <token>``, or
the URL's password (``http://webdojo:<token>@host:port``: OpenEnv's client sends no headers).
Sessions keep the server's rules: ``max_sessions`` (CAPACITY_REACHED) and the idle lease
(``--idle-ttl``: a session with no message for that long is closed, and says so).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hmac
import json
import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, RootModel

from webdojo.errors import (
    ConfigError,
    InternalError,
    InvalidRequest,
    Overloaded,
    RequestTooLarge,
    StateError,
    WebdojoError,
)
from webdojo.observation import ImageFormat, Observation
from webdojo.server.api import request_body
from webdojo.server.api.http_errors import from_validation
from webdojo.server.api.service import SessionService
from webdojo.wire.protocol import CreateSessionRequest, StepInfo, StepRequest

MAX_MESSAGE_BYTES = 1_000_000  # under websockets' default 1 MiB: any client reads our replies
WS_PATH = "/ws"  # where OpenEnv's EnvClient connects: "<base_url>/ws"
POLICY_VIOLATION = 1008  # WebSocket close code for a refused handshake (HTTP 403)
JSON = "application/json"
log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


class OpenEnvCode(StrEnum):
    """OpenEnv's ``WSErrorCode`` values (``openenv.core.env_server.types``)."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Reset(_Message):
    type: Literal["reset"]
    data: dict[str, Any] = Field(default_factory=dict)  # CreateSessionRequest's fields


class _Step(_Message):
    type: Literal["step"]
    data: dict[str, Any]  # an action, or {"text", "format"}


class _State(_Message):
    type: Literal["state"]


class _Close(_Message):
    type: Literal["close"]


class _Incoming(
    RootModel[Annotated[_Reset | _Step | _State | _Close, Field(discriminator="type")]]
):
    pass


class _Refused(Exception):
    """A message that does not validate: OpenEnv has codes of its own for these."""

    def __init__(self, code: OpenEnvCode, error: WebdojoError) -> None:
        super().__init__(error.message)
        self.code, self.error = code, error


@dataclass
class _Episode:
    """The webdojo session a connection is driving, and how far it got."""

    session_id: str
    episode_id: str  # the client's episode_id, else the session id
    task_id: str | None
    max_steps: int | None
    step_count: int = 0
    done: bool = False


class OpenEnvConnection:
    """One WebSocket's protocol, without the socket: a message in, the reply text out."""

    def __init__(self, service: SessionService, max_message_bytes: int) -> None:
        self.service = service
        self.limit = max_message_bytes
        self.episode: _Episode | None = None

    async def handle(self, raw: str | bytes) -> str | None:
        """The reply to one message; None after ``close`` (the socket closes next)."""
        try:
            return await self._answer(self._parse(raw))
        except _Refused as exc:
            return self._error(exc.code, exc.error)
        except WebdojoError as exc:
            return self._error(_code_for(exc), exc)
        except Exception as exc:  # a bug: say so, and keep the connection (and its session)
            log.exception("the OpenEnv route failed on a message")
            return self._error(OpenEnvCode.EXECUTION_ERROR, InternalError(f"server bug: {exc!r}"))

    async def _answer(self, message: _Reset | _Step | _State | _Close) -> str | None:
        if isinstance(message, _Close):
            await self.close()
            return None
        if isinstance(message, _State):
            return _encode("state", self.state())
        if isinstance(message, _Reset):
            data = await self.reset(message.data)
        else:
            data = await self.step(message.data)
        text = _encode("observation", data)
        return text if len(text) <= self.limit else self._too_large(len(text), data)

    def _parse(self, raw: str | bytes) -> _Reset | _Step | _State | _Close:
        body = raw.encode() if isinstance(raw, str) else raw
        if len(body) > self.limit:
            exc = RequestTooLarge(
                f"the message is {len(body)} bytes, over the {self.limit}-byte limit",
                limit=self.limit,
                size=len(body),
            )
            raise _Refused(OpenEnvCode.VALIDATION_ERROR, exc)
        try:
            parsed = request_body.parse(_Incoming, body, JSON, required=True)
        except RequestValidationError as exc:
            raise _Refused(_envelope_code(exc), from_validation(exc)) from exc
        assert parsed is not None
        return parsed.root

    # --- the four messages ----------------------------------------------------------------

    async def reset(self, data: dict[str, Any]) -> dict[str, Any]:
        """A new episode: the previous session (if any) is closed first, which frees its slot."""
        body = {("client_key" if k == "episode_id" else k): v for k, v in data.items()}
        req = _read(CreateSessionRequest, body)
        if req.observation.image_format is not ImageFormat.JPEG:
            raise InvalidRequest("screenshots on the OpenEnv route are JPEG only (base64)")
        await self.close()
        created = await self.service.create(req)
        self.episode = _Episode(
            session_id=created.session_id,
            episode_id=req.client_key or created.session_id,
            task_id=req.task_id,
            max_steps=created.max_steps,
        )
        return step_result(created.observation, None)

    async def step(self, data: dict[str, Any]) -> dict[str, Any]:
        episode = self.episode
        if episode is None:
            raise StateError("no episode yet: send reset first")
        if episode.done:
            raise StateError(
                f"the episode is over (done after {episode.step_count} steps); "
                "send reset to start another",
                step_count=episode.step_count,
            )
        req = _read(StepRequest, _step_body(data, episode.step_count))
        response = await self.service.step(episode.session_id, req)
        episode.step_count += 1
        episode.done = response.done
        return step_result(response.observation, response.info, done=response.done)

    def state(self) -> dict[str, Any]:
        """OpenEnv's ``State`` (``episode_id``, ``step_count``) plus webdojo's own fields."""
        e = self.episode
        return {
            "episode_id": None if e is None else e.episode_id,
            "step_count": 0 if e is None else e.step_count,
            "done": False if e is None else e.done,
            "session_id": None if e is None else e.session_id,
            "task_id": None if e is None else e.task_id,
            "max_steps": None if e is None else e.max_steps,
        }

    async def close(self) -> None:
        """Close the session, if any. Already ended (expired, lost, server shutting down) is
        fine: the socket's end must never fail on it."""
        episode, self.episode = self.episode, None
        if episode is not None:
            with contextlib.suppress(WebdojoError):
                await self.service.close(episode.session_id)

    # --- replies --------------------------------------------------------------------------

    def _too_large(self, size: int, data: dict[str, Any]) -> str:
        exc = InvalidRequest(
            f"the observation is {size} bytes, over the {self.limit}-byte message limit (the "
            "reset or step itself was done). Reset with a lower jpeg_quality, a smaller "
            "viewport or less axtree",
            size=size,
            limit=self.limit,
            step_count=self.state()["step_count"],
            done=data["done"],
            reward=data["reward"],
        )
        return self._error(OpenEnvCode.EXECUTION_ERROR, exc)

    def _error(self, code: OpenEnvCode, exc: WebdojoError) -> str:
        self.service.metrics.error(exc.code)
        return _encode("error", {"message": str(exc), "code": code.value, "error": exc.to_dict()})


def _encode(kind: str, data: dict[str, Any]) -> str:
    return json.dumps({"type": kind, "data": data})  # ASCII only: its length is its bytes


def step_result(
    observation: Observation, info: StepInfo | None, done: bool = False
) -> dict[str, Any]:
    """OpenEnv's step result: the observation (screenshot as standard base64, the step's info
    inside), the reward and done. The reward is the verifier's verdict and nothing else: a
    fault or a task without a verifier has none (a 0 would score a broken page as a failure)."""
    fields = observation.model_dump(mode="json", exclude={"screenshot"})
    shot = observation.screenshot
    # standard base64, not pydantic's URL-safe form: data URLs and b64decode expect it
    fields["screenshot"] = None if shot is None else base64.b64encode(shot).decode("ascii")
    fields["info"] = None if info is None else info.model_dump(mode="json")
    verdict = None if info is None else info.verifier
    reward = None if verdict is None else float(verdict.passed)
    return {"observation": fields, "reward": reward, "done": done}


def _step_body(data: dict[str, Any], index: int) -> dict[str, Any]:
    """A ``StepRequest`` body: the action JSON, or model text with its format."""
    data = {k: v for k, v in data.items() if k != "metadata"}  # OpenEnv's Action base field
    if "text" in data and "type" not in data:
        extra = sorted(set(data) - {"text", "format"})
        if extra:
            raise InvalidRequest(f"a text step has only text and format; got also {extra}")
        return {"step_index": index, **data}
    return {"step_index": index, "action": data}


def _read(cls: type[M], body: dict[str, Any]) -> M:
    """``body`` read as the HTTP routes read theirs (strict JSON), errors as webdojo's."""
    try:
        parsed = request_body.parse(cls, json.dumps(body).encode(), JSON, required=True)
    except RequestValidationError as exc:
        raise _Refused(OpenEnvCode.VALIDATION_ERROR, from_validation(exc)) from exc
    assert parsed is not None
    return parsed


def _envelope_code(exc: RequestValidationError) -> OpenEnvCode:
    types = {err.get("type") for err in exc.errors()}
    if "json_invalid" in types:
        return OpenEnvCode.INVALID_JSON
    if types & {"union_tag_invalid", "union_tag_not_found"}:
        return OpenEnvCode.UNKNOWN_TYPE
    return OpenEnvCode.VALIDATION_ERROR


def _code_for(exc: WebdojoError) -> OpenEnvCode:
    if isinstance(exc, Overloaded):
        return OpenEnvCode.CAPACITY_REACHED
    if isinstance(exc, ConfigError):  # the client's input: a bad field, an unknown task id
        return OpenEnvCode.VALIDATION_ERROR
    return OpenEnvCode.EXECUTION_ERROR


# --- the route ----------------------------------------------------------------------------


def install_openenv(
    app: FastAPI,
    service: SessionService,
    *,
    token: str | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    path: str = WS_PATH,
) -> None:
    """Serve OpenEnv's protocol at ``path`` on ``app``, with ``service``'s sessions and limits
    (``max_sessions`` answers CAPACITY_REACHED). ``token``: the server's bearer token (the
    app's auth middleware checks HTTP only)."""

    @app.websocket(path)
    async def openenv(websocket: WebSocket) -> None:
        if token is not None and not authorized(websocket.headers.get("authorization"), token):
            await websocket.close(code=POLICY_VIOLATION)  # before accept: HTTP 403
            return
        await websocket.accept()
        await _serve(websocket, OpenEnvConnection(service, max_message_bytes))


async def _serve(websocket: WebSocket, connection: OpenEnvConnection) -> None:
    """Answer messages in order until close or disconnect; the session never outlives it."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            reply = await connection.handle(raw if raw is not None else message.get("bytes", b""))
            if reply is None:
                await websocket.close()
                return
            await websocket.send_text(reply)
    except WebSocketDisconnect:
        pass
    finally:
        await connection.close()


def authorized(header: str | None, token: str) -> bool:
    """``Bearer <token>``, or Basic with the token as password (a URL's ``user:token@``)."""
    if header is None:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer":
        return hmac.compare_digest(value.strip().encode(), token.encode())
    if scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    return hmac.compare_digest(decoded.partition(b":")[2], token.encode())
