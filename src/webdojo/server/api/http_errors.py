"""webdojo errors on the wire: one HTTP status per kind of fault, an ``ErrorBody`` every time.

    status  codes                                    who should do what
    401     unauthorized                             the client: send the bearer token
    404     unknown_session                          the client: wrong id
    409     invalid_state, session_closed            the client: wrong step index, step after done
    410     session_expired                          the client was idle past the lease
    405     invalid_request (+ Allow)                the client: a method the route lacks
    413     body_too_large                           the client
    422     invalid_request, invalid_action and its  the client / the agent (score it)
            subclasses, parse_error, unknown_task,
            bad_start_url (also a body that is not
            JSON, not UTF-8 or nested too deeply)
    429     overloaded (+ Retry-After)               retry later
    500     internal_error                           a webdojo bug: drop the episode
    502     env faults: navigation_timeout,          the website: the body says retryable
            action_timeout, page_crashed...
    503     infra faults: session_lost,              webdojo's machinery: drop or retry the
            browser_closed...                        episode, never score it 0

Error bodies are always JSON, whatever the request's Accept header asked for: they are small and
read by people as often as by programs.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from webdojo.errors import (
    AgentError,
    ConfigError,
    EnvError,
    InfraError,
    InternalError,
    InvalidActionError,
    InvalidCoordinates,
    InvalidRequest,
    Overloaded,
    RequestTooLarge,
    SessionExpired,
    StateError,
    Unauthorized,
    UnknownSession,
    WebdojoError,
)
from webdojo.server.api.metrics import ServerMetrics
from webdojo.wire.protocol import ErrorBody

# most specific first: the first class in an error's MRO found here decides
_STATUS: dict[type[WebdojoError], int] = {
    Unauthorized: 401,
    UnknownSession: 404,
    SessionExpired: 410,
    StateError: 409,
    RequestTooLarge: 413,
    InvalidRequest: 422,
    AgentError: 422,
    ConfigError: 422,
    Overloaded: 429,
    InternalError: 500,
    EnvError: 502,
    InfraError: 503,
}
MAX_DETAILS = 10  # validation errors listed in a 422 body


def status_for(exc: WebdojoError) -> int:
    for cls in type(exc).__mro__:
        if cls in _STATUS:
            return _STATUS[cls]
    return 500


def error_body(exc: WebdojoError) -> bytes:
    return ErrorBody(error=exc.info()).model_dump_json().encode()


def error_headers(exc: WebdojoError) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if isinstance(exc, Overloaded):
        headers["retry-after"] = str(exc.details.get("retry_after_s", 1))
    if isinstance(exc, Unauthorized):
        headers["www-authenticate"] = "Bearer"
    return headers


def error_response(
    exc: WebdojoError, status: int | None = None, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        error_body(exc),
        status_code=status or status_for(exc),
        headers=(headers or {}) | error_headers(exc),
    )


def from_validation(exc: RequestValidationError) -> WebdojoError:
    """A request pydantic refused. An action the client built badly gets the action codes
    (``invalid_action``, ``invalid_coordinates``), the same an agent's text would get;
    everything else is ``invalid_request``."""
    errors: list[dict[str, Any]] = list(exc.errors())
    for err in errors:
        loc = tuple(err.get("loc", ()))
        if loc[:2] == ("body", "action"):
            where = ".".join(str(p) for p in loc[3:]) or "action"
            if err.get("type") == "finite_number":
                return InvalidCoordinates(f"{where}: coordinates must be finite numbers")
            return InvalidActionError(f"{where}: {err.get('msg', 'invalid')}")
    for err in errors:
        if err.get("type") == "json_invalid":
            cause = (err.get("ctx") or {}).get("error", "")
            return InvalidRequest(f"the request body is not valid JSON ({cause})")
    summary = [
        {"loc": [str(p) for p in err.get("loc", ())], "msg": str(err.get("msg", ""))}
        for err in errors[:MAX_DETAILS]
    ]
    first = summary[0] if summary else {"loc": [], "msg": "invalid request"}
    message = f"{'.'.join(first['loc']) or 'body'}: {first['msg']}"
    return InvalidRequest(message, errors=summary)


def from_http(
    request: Request, exc: StarletteHTTPException
) -> tuple[WebdojoError, int, dict[str, str] | None]:
    """Starlette's and FastAPI's own refusals: no such route (404), a method the route lacks
    (405, with the ``Allow`` header Starlette computed), a body FastAPI could not read (400,
    answered as the 422 any other unreadable body gets)."""
    text = exc.detail if isinstance(exc.detail, str) else "request refused"
    if exc.status_code == 404:
        text = f"no route {request.method} {request.url.path}"
    elif exc.status_code == 405:
        allow = (exc.headers or {}).get("Allow", "")
        text = f"{request.method} is not allowed on {request.url.path}; allowed: {allow}"
    elif exc.status_code == 400:
        cause = exc.__cause__
        why = f" ({type(cause).__name__})" if cause is not None else ""
        return InvalidRequest(f"the request body could not be read{why}"), 422, None
    return InvalidRequest(text), exc.status_code, dict(exc.headers or {})


def install(app: FastAPI, metrics: ServerMetrics) -> None:
    """Register handlers that turn every failure into an ErrorBody (and count it)."""

    def reply(
        exc: WebdojoError, status: int | None = None, headers: dict[str, str] | None = None
    ) -> Response:
        metrics.error(exc.code)
        return error_response(exc, status, headers)

    async def on_webdojo(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebdojoError)
        return reply(exc)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return reply(from_validation(exc))

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return reply(*from_http(request, exc))

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        return reply(InternalError(f"{type(exc).__name__}: {exc}"))

    app.add_exception_handler(WebdojoError, on_webdojo)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
