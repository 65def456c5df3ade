"""``HttpEnv``: the ``EnvClient`` protocol over a ``webdojo serve`` server.

    env = HttpEnv("http://127.0.0.1:8700", token=None)
    records = await run_episodes(env, specs, policy, store, concurrency=16)

A drop-in for ``InProcessEnv``: ``open(task)`` creates a session from the task's id (the server
must serve the same task set), and errors come back as the same webdojo error classes, rebuilt
from each ``ErrorBody``'s stable code. Of ``SessionOptions`` only the viewport travels: the
server sets deadlines (``webdojo serve --action-timeout/--navigation-timeout``).

Retries. A request that never reached the server (connection refused) is retried. A step that
may have reached it (reset, timeout) is retried too, with the same ``step_index``: the server
replays the recorded response instead of acting twice. Observe, final_state and close are
idempotent and retried likewise; only create is not (a lost response would leak a session
until its lease runs out). A create answered 429 waits for Retry-After, up to
``overload_wait_s``. After that, failures raise ``ServerUnavailable`` (infra, retryable).

Responses come as msgpack (raw screenshot bytes) unless ``transport="json"``; see
``webdojo.wire.transport`` for why. Requests travel on ``http_wire.WireClient``, a thin
adapter over one aiohttp session (persistent connections; see that module for why not httpx).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import (
    InternalError,
    Overloaded,
    ServerUnavailable,
    SessionClosed,
    SessionExpired,
    SessionLost,
    UnknownSession,
    WebdojoError,
    from_info,
)
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.rollout.http_wire import WireClient, WireError, WireResponse
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult
from webdojo.wire.protocol import (
    CreateSessionRequest,
    ErrorBody,
    FinalStateRequest,
    FinalStateResponse,
    ObserveRequest,
    SessionCreated,
    StepRequest,
    StepResponse,
)
from webdojo.wire.transport import JSON, MSGPACK, decode

M = TypeVar("M", bound=BaseModel)
_GONE = (SessionClosed, SessionExpired, UnknownSession, SessionLost)  # nothing left to close


def error_from_response(response: WireResponse) -> WebdojoError:
    """The webdojo error an error response stands for (its class chosen by the code)."""
    try:
        info = ErrorBody.model_validate_json(response.content).error
    except ValueError:
        text = response.text[:300]
        return InternalError(f"HTTP {response.status_code} without an error body: {text}")
    return from_info(info)


class HttpEnv:
    """Sessions on a remote server. Close with ``aclose`` (or ``async with``)."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        transport: Literal["msgpack", "json"] = "msgpack",
        timeout_s: float = 120.0,
        retries: int = 3,
        backoff_s: float = 0.2,
        overload_wait_s: float = 300.0,
        max_connections: int = 1024,
        default_session: SessionOptions | None = None,
    ) -> None:
        headers = {"accept": MSGPACK if transport == "msgpack" else JSON}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self.client = WireClient(
            base_url, headers, timeout_s=timeout_s, max_connections=max_connections
        )
        self.retries = retries
        self.backoff_s = backoff_s
        self.overload_wait_s = overload_wait_s
        self.default_session = default_session or SessionOptions()

    # --- EnvClient ------------------------------------------------------------------------

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[HttpSession, Observation]:
        return await self._create(
            CreateSessionRequest(task_id=task.id, seed=seed, **self._shape(options, session))
        )

    async def open_url(
        self, start_url: str, options: ObservationOptions, session: SessionOptions | None = None
    ) -> tuple[HttpSession, Observation]:
        """A session at any URL the server can reach (no task, so no verifier)."""
        return await self._create(
            CreateSessionRequest(start_url=start_url, **self._shape(options, session))
        )

    async def health(self) -> dict[str, Any]:
        response = await self.request("GET", "/v1/health", idempotent=True)
        return dict(response.json())

    async def aclose(self) -> None:
        await self.client.aclose()

    async def __aenter__(self) -> HttpEnv:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- plumbing -------------------------------------------------------------------------

    def _shape(self, options: ObservationOptions, session: SessionOptions | None) -> dict[str, Any]:
        session = session or self.default_session
        return {
            "observation": options,
            "viewport_width": session.viewport_width,
            "viewport_height": session.viewport_height,
        }

    async def _create(self, req: CreateSessionRequest) -> tuple[HttpSession, Observation]:
        deadline = time.monotonic() + self.overload_wait_s
        while True:
            try:
                response = await self.request("POST", "/v1/sessions", req, idempotent=False)
                break
            except Overloaded as exc:
                wait = float(exc.details.get("retry_after_s", 1))
                if time.monotonic() + wait > deadline:
                    raise
                await asyncio.sleep(wait)
        created = decode(SessionCreated, response.content, response.headers.get("content-type"))
        return HttpSession(self, created, req.observation), created.observation

    async def request(
        self, method: str, path: str, body: BaseModel | None = None, *, idempotent: bool
    ) -> WireResponse:
        """Send one request, retrying transport failures where that is safe; an error
        response raises its webdojo error."""
        content = None if body is None else body.model_dump_json(exclude_none=True).encode()
        headers = None if body is None else {"content-type": JSON}
        for attempt in range(self.retries + 1):
            try:
                response = await self.client.request(method, path, content=content, headers=headers)
            except WireError as exc:
                if attempt == self.retries or (exc.sent and not idempotent):
                    raise ServerUnavailable(
                        f"{method} {path} failed: {exc}",
                        attempts=attempt + 1,
                    ) from exc
                await asyncio.sleep(self.backoff_s * 2**attempt)
                continue
            if response.status_code >= 400:
                raise error_from_response(response)
            return response
        raise AssertionError("unreachable")

    async def call(self, path: str, body: BaseModel | None, cls: type[M]) -> M:
        response = await self.request("POST", path, body, idempotent=True)
        return decode(cls, response.content, response.headers.get("content-type"))


class HttpSession:
    """One remote session (the ``EnvSession`` protocol). Not for concurrent use: one step at
    a time, as an episode does."""

    def __init__(self, env: HttpEnv, created: SessionCreated, options: ObservationOptions) -> None:
        self.env = env
        self.id = created.session_id
        self.worker = created.worker
        self.max_steps = created.max_steps
        self.next_index = 0
        self.last: StepResponse | None = None  # the last step's full response (info, done)
        self._options = options  # as given at creation: the server's default for this session
        self._closed = False
        self._path = f"/v1/sessions/{self.id}"

    @property
    def done(self) -> bool:
        return self.last is not None and self.last.done

    async def send(
        self,
        action: Action | None = None,
        *,
        text: str | None = None,
        format: str | None = None,
        options: ObservationOptions | None = None,
    ) -> StepResponse:
        """One step, as an action or as model text and its format; the whole response."""
        req = StepRequest(
            step_index=self.next_index,
            action=action,
            text=text,
            format=format,
            observation=None if options == self._options else options,
        )
        response = await self.env.call(f"{self._path}/step", req, StepResponse)
        self.next_index = response.step_index + 1
        self.last = response
        return response

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        return (await self.send(action, options=options)).observation

    async def observe(self, options: ObservationOptions) -> Observation:
        req = ObserveRequest(observation=None if options == self._options else options)
        return await self.env.call(f"{self._path}/observe", req, Observation)

    async def final_state(self, answer: str | None) -> FinalState:
        """The state captured when the episode ended (no round trip), else asked for."""
        info = None if self.last is None else self.last.info
        if info is not None and info.final_state is not None and info.answer == answer:
            return info.final_state
        return (await self.final_state_verified(answer)).final_state

    async def verify(
        self, task: Task, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]:
        """The server's final state and verdict: it verified where the page is (at the step
        that ended the episode, else now), so the client does not verify again."""
        info = None if self.last is None else self.last.info
        if info is not None and info.final_state is not None and info.answer == answer:
            final, verdict = info.final_state, info.verifier
        else:
            response = await self.final_state_verified(answer)
            final, verdict = response.final_state, response.verifier
        if verdict is None and task.verifier is None:
            return final, None  # nothing to verify: a judge scores the episode later
        if verdict is None:
            raise InternalError(f"the server did not verify session {self.id} (task {task.id})")
        return final, verdict

    async def final_state_verified(self, answer: str | None) -> FinalStateResponse:
        """The final state and, for a task session, the server's verifier result."""
        req = FinalStateRequest(answer=answer)
        return await self.env.call(f"{self._path}/final_state", req, FinalStateResponse)

    async def aclose(self) -> None:
        """Close once; a session the server already closed, expired or lost counts as closed."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(*_GONE):
            await self.env.request("DELETE", self._path, idempotent=True)
