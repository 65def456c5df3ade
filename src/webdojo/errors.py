"""Every error webdojo raises, in one tree. Each class has a stable ``code``.

The ``fault`` says who is to blame, which decides how a trainer should treat the episode:

* ``agent`` - the policy produced something unusable (bad text, invalid action). The episode
  goes on; the error is shown to the model in the next observation. Scoring it is fair.
* ``env``   - the website misbehaved (hung navigation, crashed page, an action that the page
  refused). The episode may go on; a trainer may want to drop it.
* ``infra`` - webdojo's own machinery failed (no Chromium, dead browser, unreachable model
  endpoint, lost session). Never score these 0: drop or retry them.
* ``config``- the user's input is wrong (bad task file, bad flag). Fix and re-run.

    WebdojoError
    ├── AgentError                     fault=agent
    │   ├── ParseError                 parse_error
    │   └── InvalidActionError         invalid_action
    │       ├── InvalidCoordinates     invalid_coordinates
    │       ├── UnknownElement         unknown_element
    │       ├── TextTooLong            text_too_long
    │       ├── BadKey                 bad_key
    │       ├── BadUrl                 bad_url
    │       ├── BadTab                 bad_tab
    │       ├── StaleElement           stale_element (the element left or moved under the pointer)
    │       └── NetworkBlocked         blocked_by_policy (the session's network policy)
    ├── EnvError                       fault=env
    │   ├── ActionTimeout              action_timeout
    │   ├── NavigationTimeout          navigation_timeout
    │   ├── ActionFailed               action_failed
    │   ├── PageCrashed                page_crashed
    │   ├── DownloadTooLarge           download_too_large (past the session's download bytes)
    │   └── TooManyDownloads           too_many_downloads (past the session's download count)
    ├── InfraError                     fault=infra
    │   ├── ChromiumNotFound           chromium_not_found
    │   ├── BrowserClosed              browser_closed
    │   ├── ModelError                 model_error
    │   │   ├── ModelTimeout           model_timeout
    │   │   ├── ModelOutputInvalid     model_output_invalid (no usable reply after retries)
    │   │   └── ContextTooLong         context_too_long (even with images downscaled and dropped)
    │   ├── SessionLost                session_lost
    │   ├── TrajectoryIncomplete       trajectory_incomplete (judge: a screenshot, answer... missing)
    │   ├── RulesUnchecked             rules_unchecked (judge: rules that need a model or the DOM)
    │   ├── SiteUnreachable            site_unreachable (the task's website: DNS, refused, offline)
    │   ├── Overloaded                 overloaded      (server: past --max-sessions, 429)
    │   ├── OutOfMemory                out_of_memory   (training: the device ran out of memory)
    │   ├── ServerUnavailable          server_unavailable (client: server unreachable)
    │   │   └── ServerDown             server_down     (run: unreachable episode after episode)
    │   └── InternalError              internal_error  (server: a bug, 500)
    ├── ConfigError                    fault=config
    │   ├── TaskFileError              bad_task_file
    │   ├── RecordSchemaError          bad_record      (a stored record of a newer schema)
    │   ├── LabelFileError             bad_label_file  (a human-label file: file:line: field)
    │   ├── ArchiveError               bad_archive     (a cache archive, WARC or HAR file)
    │   ├── ZimError                   bad_zim         (a ZIM file: missing, unreadable, not a ZIM)
    │   ├── MissingDependency          missing_dependency (a package or program to install)
    │   ├── MissingObservation         missing_observation (a step's context cannot be rebuilt)
    │   ├── UnknownTask                unknown_task    (server: no such task id)
    │   ├── Unauthorized               unauthorized    (server: missing/wrong bearer token)
    │   ├── InvalidRequest             invalid_request (server: malformed request body)
    │   │   ├── RequestTooLarge        body_too_large
    │   │   └── BadStartUrl            bad_start_url   (server: a start URL goto would refuse)
    │   └── TrainingError              training_error  (the trainer's input, before it starts)
    │       ├── ModelMismatch          model_mismatch  (tokenizer/processor vs model)
    │       ├── EmptyTrainingData      empty_training_data
    │       ├── NoRewards              no_rewards      (rl: every advantage/reward is zero)
    │       ├── MissingImages          missing_images  (a vision model without its images)
    │       ├── ExampleTooLong         example_too_long (cannot be cut to --max-tokens)
    │       └── ResumeMismatch         resume_mismatch (a checkpoint of other data/settings)
    └── StateError                     invalid_state   (e.g. step after done)
        ├── UnknownSession             unknown_session (server: no such session id)
        ├── SessionClosed              session_closed  (server: already closed)
        └── SessionExpired             session_expired (server: the idle lease ran out)

Library exceptions (Playwright, httpx, openai) are translated at the boundary with
``raise ... from exc`` so that callers only ever catch these.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar


class Fault(StrEnum):
    """Who is to blame for an error; see the module docstring."""

    AGENT = "agent"
    ENV = "env"
    INFRA = "infra"
    CONFIG = "config"


class WebdojoError(Exception):
    """Base class. ``code`` is stable across releases; ``message`` is for people and models."""

    code: ClassVar[str] = "webdojo_error"
    fault: ClassVar[Fault] = Fault.INFRA
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape used in step records and (later) server error bodies."""
        out: dict[str, Any] = {
            "code": self.code,
            "fault": self.fault.value,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.details:
            out["details"] = self.details
        return out

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


# --- agent faults -------------------------------------------------------------------------


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


# --- environment faults -------------------------------------------------------------------


class EnvError(WebdojoError):
    code = "env_error"
    fault = Fault.ENV


class ActionTimeout(EnvError):
    """An operation ran past its deadline. The session is still usable."""

    code = "action_timeout"
    retryable = True


class NavigationTimeout(EnvError):
    code = "navigation_timeout"
    retryable = True


class ActionFailed(EnvError):
    """The page refused the action (element detached, not an input, option missing...)."""

    code = "action_failed"


class PageCrashed(EnvError):
    code = "page_crashed"


class DownloadTooLarge(EnvError):
    """A page's download would pass the session's cap on download bytes; it was cancelled
    (or deleted) and nothing of it stays on disk. Reported in ``Observation.downloads``."""

    code = "download_too_large"


class TooManyDownloads(EnvError):
    """A page's download would pass the session's cap on downloaded files; refused."""

    code = "too_many_downloads"


class CacheMiss(EnvError):
    """Replay in strict mode met a request that no recorded one matches. ``details`` hold the
    request (method, url) and its nearest recorded candidates."""

    code = "cache_miss"


# --- infrastructure faults ----------------------------------------------------------------


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


# --- user configuration -------------------------------------------------------------------


class ConfigError(WebdojoError):
    code = "config_error"
    fault = Fault.CONFIG


class TaskFileError(ConfigError):
    code = "bad_task_file"


class RecordSchemaError(ConfigError):
    """A stored trajectory record this webdojo cannot read: a newer ``schema_version``, or a
    line that does not match the record model."""

    code = "bad_record"


class LabelFileError(ConfigError):
    """A line of a human-label file (``webdojo.judges.human_labels``) that cannot be read."""

    code = "bad_label_file"


class ArchiveError(ConfigError):
    """A record/replay archive, WARC or HAR file that cannot be read: corrupt, truncated, of
    another format version. ``details`` name the file and, where the rest was read, how many
    records were skipped."""

    code = "bad_archive"


class ZimError(ConfigError):
    """A ZIM file (an offline Wikipedia, ``webdojo.envs``) that cannot be served: missing,
    unreadable, or not a ZIM. ``details`` name the file."""

    code = "bad_zim"


class MissingDependency(ConfigError):
    """An optional package or program that a command needs is not installed; the message says
    what to install (the pip or apt line)."""

    code = "missing_dependency"


class MissingObservation(ConfigError):
    """A training sample whose step context cannot be rebuilt exactly: a screenshot or
    observation file is gone, or the run predates stored observations (schema v1-v2) or did
    not capture what the prompt template shows (an accessibility tree, a screenshot)."""

    code = "missing_observation"


class UnknownTask(ConfigError):
    code = "unknown_task"


class Unauthorized(ConfigError):
    code = "unauthorized"


class InvalidRequest(ConfigError):
    """A request that does not follow the wire protocol (bad JSON, missing fields...)."""

    code = "invalid_request"


class RequestTooLarge(InvalidRequest):
    code = "body_too_large"


class BadStartUrl(InvalidRequest):
    """A session's start URL that the agent's ``goto`` would refuse (``file:``, ``data:``,
    ``view-source:``, no host...): sessions open only where an agent may navigate."""

    code = "bad_start_url"


class TrainingError(ConfigError):
    """Input the trainer cannot learn from, found before the first step where detectable."""

    code = "training_error"


class ModelMismatch(TrainingError):
    """A tokenizer or processor that does not fit its model (ids past the embedding table, a
    different image token), or a chat template that cannot mark the model's turns."""

    code = "model_mismatch"


class EmptyTrainingData(TrainingError):
    code = "empty_training_data"


class NoRewards(TrainingError):
    """An RL update whose every sample has a zero advantage (or reward): nothing to learn."""

    code = "no_rewards"


class MissingImages(TrainingError):
    """A vision model given examples without images, or an image that does not decode."""

    code = "missing_images"


class ExampleTooLong(TrainingError):
    """An example that cannot be cut to the token limit (its reply alone is longer, or the cut
    would split an image's tokens)."""

    code = "example_too_long"


class ResumeMismatch(TrainingError):
    """``--resume`` on an output directory whose checkpoint was trained on other data or with
    other settings: resuming would not continue that run."""

    code = "resume_mismatch"


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


def all_codes() -> dict[str, type[WebdojoError]]:
    """Every stable code, mapped to its class (used by docs and tests)."""
    found: dict[str, type[WebdojoError]] = {}
    stack: list[type[WebdojoError]] = [WebdojoError]
    while stack:
        cls = stack.pop()
        found[cls.code] = cls
        stack.extend(cls.__subclasses__())
    return found


class StaleElement(InvalidActionError):
    """An action by element id whose element is gone from the page, or moved while the
    pointer went to it (the press would have reached another element, so it was held back).
    Nothing was done; observe again and use a fresh id."""

    code = "stale_element"
