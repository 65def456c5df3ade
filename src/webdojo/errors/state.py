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


class StepConflict(StateError):
    """A step sent again under the index of the last step done, with another action: a client
    off by one, or two clients on one session. The step is not done (409); a retry of the
    same request gets the stored answer instead."""

    code = "step_conflict"


class SessionExpired(StateError):
    """No request came within the session's idle lease, so the server closed it."""

    code = "session_expired"
