"""The FastAPI app of ``webdojo serve``: routes under ``/v1``, ``/metrics``, OpenAPI.

``create_app(pool, task_set, settings)`` builds it; the app's lifespan starts the pool (in the
server's own event loop), a ``SiteServer`` for the task set's sites and the lease reaper, and
closes all three at shutdown. Routes are thin: decode, one ``SessionService`` call, encode.

Responses are JSON unless the request's Accept header asks for msgpack (``transport.py``);
errors are always an ``ErrorBody`` in JSON (``http_errors.py``). Middlewares, outermost
first: bearer auth (when a token is set), then the body cap, both before any parsing.

Close semantics: ``DELETE`` answers 204 once; closing again answers 409 ``session_closed`` (and
410 ``session_expired`` after the reaper closed it): a double close is a client bug worth
seeing. ``HttpEnv`` treats those codes as "already closed" when it retries a DELETE.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import FastAPI, Header, Request, Response
from fastapi.responses import Response as RawResponse

from webdojo.browser.options import SessionOptions
from webdojo.observation import Observation
from webdojo.server.api import http_errors, request_body
from webdojo.server.api.metrics import CONTENT_TYPE, ServerMetrics
from webdojo.server.api.middleware import BearerAuth, BodyLimit
from webdojo.server.api.openenv_ws import install_openenv
from webdojo.server.api.registry import Registry
from webdojo.server.api.service import SessionService
from webdojo.server.pool.base import Pool
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import TaskSet
from webdojo.wire.protocol import (
    API_VERSION,
    MAX_BODY_BYTES,
    CreateSessionRequest,
    ErrorBody,
    FinalStateRequest,
    FinalStateResponse,
    Health,
    ObserveRequest,
    SessionCreated,
    StepRequest,
    StepResponse,
    WorkerHealth,
    task_id_schema,
)
from webdojo.wire.transport import JSON, MSGPACK, respond

PREFIX = f"/{API_VERSION}"


def _version() -> str:
    try:
        return importlib.metadata.version("webdojo")
    except importlib.metadata.PackageNotFoundError:  # running from a source tree
        return "0+unknown"


VERSION = _version()


@dataclass(frozen=True)
class ServerSettings:
    max_sessions: int = 64  # live sessions (open or done) before create answers 429
    idle_ttl_s: float = 300.0  # a session with no request for this long is closed
    reap_interval_s: float | None = None  # how often the reaper looks; None = ttl / 4, <= 10 s
    token: str | None = None  # bearer token; None = no auth (serve() insists on one off loopback)
    retry_after_s: int = 1  # Retry-After of a 429
    max_body_bytes: int = MAX_BODY_BYTES
    session: SessionOptions = field(default_factory=SessionOptions)  # deadlines of sessions
    manage_pool: bool = True  # start the pool at startup and close it at shutdown
    openenv: bool = False  # also serve OpenEnv's WebSocket protocol at /ws (openenv_ws.py)

    def reap_every_s(self) -> float:
        if self.reap_interval_s is not None:
            return self.reap_interval_s
        return max(0.05, min(self.idle_ttl_s / 4, 10.0))


_ERROR_TEXT = {
    401: "missing or wrong bearer token",
    404: "unknown session",
    409: "state error: wrong step index, step after done, session closed",
    410: "the session's idle lease expired",
    413: "body too large",
    422: "invalid request or action (a body that is not JSON, not UTF-8, nested too deeply...)",
    429: "overloaded (see Retry-After)",
    500: "a webdojo bug",
    502: "environment fault (the website)",
    503: "infrastructure fault (session lost, browser gone)",
}
_ERROR_HEADERS = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}}},
    429: {"Retry-After": {"schema": {"type": "string"}, "description": "seconds to wait"}},
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error responses a route can give, for its OpenAPI entry: all an ``ErrorBody``."""
    return {
        status: {"model": ErrorBody, "description": _ERROR_TEXT[status]}
        | ({"headers": _ERROR_HEADERS[status]} if status in _ERROR_HEADERS else {})
        for status in statuses
    }


# what each kind of route can answer besides its success (401 only where a token is set)
_CREATE_ERRORS = _errors(401, 413, 422, 429, 502, 503)
_SESSION_ERRORS = _errors(401, 404, 409, 410, 413, 422, 429, 502, 503)
_CLOSE_ERRORS = _errors(401, 404, 409, 410, 413, 503)
_BODIES = (CreateSessionRequest, StepRequest, ObserveRequest, FinalStateRequest)
Accept = Annotated[str | None, Header()]  # JSON or msgpack (see transport.py)
_BINARY: dict[str, Any] = {
    "content": {JSON: {}, MSGPACK: {}}
}  # both media types, by the Accept header


def create_app(pool: Pool, task_set: TaskSet, settings: ServerSettings | None = None) -> FastAPI:
    settings = settings or ServerSettings()
    registry = Registry(settings.max_sessions, settings.idle_ttl_s)
    metrics = ServerMetrics(registry.counts, pool.stats, settings.max_sessions)
    service = SessionService(
        pool, registry, task_set, None, metrics, settings.session, settings.retry_after_s
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.sites = sites = SiteServer(task_set.sites)
        try:
            if settings.manage_pool:
                await pool.start()
            reaper = asyncio.create_task(service.reap_forever(settings.reap_every_s()))
            try:
                yield
            finally:
                reaper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reaper
                await service.close_all()
                if settings.manage_pool:
                    await pool.aclose()
        finally:
            sites.close()

    app = FastAPI(
        title="webdojo environment server",
        version=VERSION,
        lifespan=lifespan,
        responses=_errors(500),  # any route, on a bug
    )
    app.state.service = service
    app.state.metrics = metrics
    http_errors.install(app, metrics)
    _session_routes(app, service)
    _status_routes(app, service, metrics)
    if settings.openenv:  # the same sessions, limits and token as the HTTP routes
        install_openenv(app, service, token=settings.token)
    request_body.publish(app, _BODIES)
    _publish_task_ids(app, task_set)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes, on_error=metrics.error)
    if settings.token:
        app.add_middleware(BearerAuth, token=settings.token, on_error=metrics.error)
    return app


def _publish_task_ids(app: FastAPI, task_set: TaskSet) -> None:
    """The spec's ``task_id`` is a ``TaskId``: the ids this server takes (an app serves one
    task set), not any string."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = build()  # cached by FastAPI in app.openapi_schema, which this edits
            schemas = spec["components"]["schemas"]
            schemas["TaskId"] = task_id_schema([t.id for t in task_set.tasks])
            create = schemas[CreateSessionRequest.__name__]
            create["properties"]["task_id"] = {"$ref": request_body.REF.format(model="TaskId")}
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def _session_routes(app: FastAPI, service: SessionService) -> None:
    """The routes of ``/v1/sessions``: create, step, observe, final state, close."""

    # bodies are read by request_body (strict JSON), so they are declared in openapi_extra
    @app.post(
        f"{PREFIX}/sessions",
        response_model=SessionCreated,
        status_code=201,
        responses={201: _BINARY, **_CREATE_ERRORS},
        openapi_extra=request_body.doc(CreateSessionRequest),
    )
    async def create_session(request: Request, accept: Accept = None) -> Response:
        """Open a fresh browser context at a task's start page or a URL; the first observation."""
        req = await request_body.read(request, CreateSessionRequest)
        assert req is not None
        return respond(await service.create(req), accept, status=201)

    @app.post(
        f"{PREFIX}/sessions/{{session_id}}/step",
        response_model=StepResponse,
        responses={200: _BINARY, **_SESSION_ERRORS},
        openapi_extra=request_body.doc(StepRequest),
    )
    async def step(session_id: str, request: Request, accept: Accept = None) -> Response:
        """One action (or model text and its format). Re-sending the last step_index replays
        the last response without acting again."""
        req = await request_body.read(request, StepRequest)
        assert req is not None
        return respond(await service.step(session_id, req), accept)

    @app.post(
        f"{PREFIX}/sessions/{{session_id}}/observe",
        response_model=Observation,
        responses={200: _BINARY, **_SESSION_ERRORS},
        openapi_extra=request_body.doc(ObserveRequest, required=False),
    )
    async def observe(session_id: str, request: Request, accept: Accept = None) -> Response:
        """Observe again without acting."""
        req = await request_body.read(request, ObserveRequest, required=False)
        options = None if req is None else req.observation
        return respond(await service.observe(session_id, options), accept)

    @app.post(
        f"{PREFIX}/sessions/{{session_id}}/final_state",
        response_model=FinalStateResponse,
        responses={200: _BINARY, **_SESSION_ERRORS},
        openapi_extra=request_body.doc(FinalStateRequest, required=False),
    )
    async def final_state(session_id: str, request: Request, accept: Accept = None) -> Response:
        """The page's final state (what verifiers see), verified when made from a task id."""
        req = await request_body.read(request, FinalStateRequest, required=False)
        answer = None if req is None else req.answer
        return respond(await service.final_state(session_id, answer), accept)

    @app.delete(f"{PREFIX}/sessions/{{session_id}}", status_code=204, responses=_CLOSE_ERRORS)
    async def close(session_id: str) -> Response:
        """Close the session. A second close answers 409 session_closed."""
        await service.close(session_id)
        return Response(status_code=204)


def _status_routes(app: FastAPI, service: SessionService, metrics: ServerMetrics) -> None:
    """Health (open to all) and Prometheus metrics."""

    @app.get(
        f"{PREFIX}/health",
        response_model=Health,
        responses={503: {"model": Health, "description": "down: no worker can take a session"}},
    )
    async def health(response: Response) -> Health:
        """Liveness and capacity; the only route that needs no token. "ok" (200): every
        worker ready with a live browser; "degraded" (200): some are dead or relaunching
        their browser; "down" (503): none can take a session. A browser is dead as soon as
        its process is: the pool checks it now (never by a call to the browser)."""
        stats = service.pool.stats()
        workers = [
            WorkerHealth(worker=name, state=w.state, browser=w.browser, sessions=w.sessions)
            for name, w in stats.by_worker.items()
        ]
        healthy = sum(w.healthy for w in stats.by_worker.values())
        if not stats.by_worker:  # a pool that does not report its workers: liveness only
            healthy = stats.workers_alive
        status = "ok" if healthy == stats.workers else "degraded" if healthy else "down"
        if status == "down":
            response.status_code = 503
        return Health(
            status=status,
            version=VERSION,
            sessions=service.registry.live_count(),
            max_sessions=service.registry.max_sessions,
            workers=stats.workers,
            workers_alive=stats.workers_alive,
            browsers_alive=sum(w.browser == "alive" for w in stats.by_worker.values()),
            worker_restarts=stats.restarts,
            workers_retired=stats.retired,
            by_worker=workers,
        )

    @app.get(
        "/metrics",
        response_class=RawResponse,
        responses={
            200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}}},
            **_errors(401),
        },
    )
    async def prometheus() -> Response:
        """Prometheus text format."""
        return Response(metrics.render(), media_type=CONTENT_TYPE)
