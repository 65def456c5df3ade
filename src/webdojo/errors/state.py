"""Lifecycle faults: an operation that the current state does not allow."""

from __future__ import annotations

from webdojo.errors.base import Fault, WebdojoError


class StateError(WebdojoError):
    """An operation that the current lifecycle state does not allow (step after done...)."""

    code = "invalid_state"
    fault = Fault.CONFIG


class UnknownSession(StateError):
    """No session has this id (never created, or closed long ago)."""

    code = "unknown_session"


class SessionClosed(StateError):
    code = "session_closed"


class SessionExpired(StateError):
    """No request came within the session's idle lease, so the server closed it."""

    code = "session_expired"
