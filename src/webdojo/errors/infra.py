"""Infrastructure faults: webdojo's own machinery failed. Drop or retry, never score 0."""

from __future__ import annotations

from webdojo.errors.base import Fault, WebdojoError


class InfraError(WebdojoError):
    code = "infra_error"
    fault = Fault.INFRA
    retryable = True


class ChromiumNotFound(InfraError):
    code = "chromium_not_found"
    retryable = False


class BrowserClosed(InfraError):
    code = "browser_closed"


class ModelError(InfraError):
    """The model endpoint failed (connection refused, 5xx, bad JSON envelope)."""

    code = "model_error"


class ModelDown(ModelError):
    """The model endpoint failed episode after episode, so the run stopped early: what was
    scored is kept, and the same command resumes with the episodes not started."""

    code = "model_down"


class ModelTimeout(ModelError):
    code = "model_timeout"


class ModelOutputInvalid(ModelError):
    """The endpoint answered, but every reply failed validation (not JSON, missing fields...),
    even after the validation error was shown back to the model."""

    code = "model_output_invalid"
    retryable = False


class ContextTooLong(ModelError):
    """The request does not fit the model's context, even after its images were downscaled and
    the oldest ones dropped."""

    code = "context_too_long"


class SessionLost(InfraError):
    code = "session_lost"


class TrajectoryIncomplete(InfraError):
    """A stored trajectory lacks what a judge needs (screenshot files, the final answer, its
    task): it gets an ``infra_error`` verdict naming what is missing, never a silent 0."""

    code = "trajectory_incomplete"


class RulesUnchecked(InfraError):
    """A task's evaluation rules that the programmatic judge cannot check from a stored run (a
    semantic match needs a model; an element path needs the page's DOM, which runs do not
    store), while every rule it could check passed: the verdict is undecided, never a silent
    pass. Unlike ``trajectory_incomplete`` nothing is missing from the run: another judge (a
    model judge) is the remedy, not another rollout."""

    code = "rules_unchecked"


class SiteUnreachable(InfraError):
    """The task's start page could not be reached (no such host, connection refused, no
    network, TLS failure): the website or the network is at fault, not the agent, so the
    episode is never scored. Imported tasks on live websites meet this when offline."""

    code = "site_unreachable"


class OutOfMemory(InfraError):
    """The training device ran out of memory; the message says what to lower."""

    code = "out_of_memory"
    retryable = False


class Overloaded(InfraError):
    """The server is at its session limit; retry after the delay it gives (Retry-After)."""

    code = "overloaded"


class TooManyConnections(Overloaded):
    """One client address holds as many connections as the server allows it: the new one is
    answered 429 and closed, so that one client cannot take every connection (health checks
    and other clients' sessions included)."""

    code = "too_many_connections"


class ServerUnavailable(InfraError):
    """An environment server could not be reached (connection refused, reset, timed out)."""

    code = "server_unavailable"


class ServerDown(ServerUnavailable):
    """The environment server stayed unreachable for several episodes in a row, so the run
    stopped early: the episodes not started are left for a resume."""

    code = "server_down"


class InternalError(InfraError):
    """An unexpected exception inside webdojo (a bug): reported, never scored."""

    code = "internal_error"
    retryable = False
