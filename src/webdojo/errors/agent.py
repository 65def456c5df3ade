"""Agent faults: the policy produced something unusable. The episode goes on, and the
error is shown to the model."""

from __future__ import annotations

from webdojo.errors.base import Fault, WebdojoError


class AgentError(WebdojoError):
    code = "agent_error"
    fault = Fault.AGENT


class ParseError(AgentError):
    """Model text that no parser could turn into an action. The message is written to be shown
    back to the model, so it says what was expected."""

    code = "parse_error"


class InvalidActionError(AgentError):
    code = "invalid_action"


class InvalidCoordinates(InvalidActionError):
    code = "invalid_coordinates"


class UnknownElement(InvalidActionError):
    code = "unknown_element"


class TextTooLong(InvalidActionError):
    code = "text_too_long"


class BadKey(InvalidActionError):
    code = "bad_key"


class BadUrl(InvalidActionError):
    code = "bad_url"


class BadTab(InvalidActionError):
    code = "bad_tab"


class NetworkBlocked(InvalidActionError):
    """A navigation went to a host, address or scheme that the session's network policy
    blocks (private ranges, metadata services, the deny list); the message names the host and
    the rule."""

    code = "blocked_by_policy"


class StaleElement(InvalidActionError):
    """An action by element id whose element is gone from the page, or moved while the
    pointer went to it (the press would have reached another element, so it was held back).
    Nothing was done; observe again and use a fresh id."""

    code = "stale_element"
