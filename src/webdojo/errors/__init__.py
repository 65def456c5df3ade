"""Every error webdojo raises, in one tree (one module per fault family, imported here). Each class has a stable ``code``.

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
    │   ├── StartPageFailed            start_page_failed (the start page answered 4xx/5xx)
    │   ├── DownloadTooLarge           download_too_large (past the session's download bytes)
    │   ├── TooManyDownloads           too_many_downloads (past the session's download count)
    │   └── TabLimitReached            tab_limit (windows a page opened past the session's tabs)
    ├── InfraError                     fault=infra
    │   ├── ChromiumNotFound           chromium_not_found
    │   ├── BrowserClosed              browser_closed
    │   ├── ModelError                 model_error
    │   │   ├── ModelDown              model_down (run: the endpoint failed episode after episode)
    │   │   ├── ModelTimeout           model_timeout
    │   │   ├── ModelOutputInvalid     model_output_invalid (no usable reply after retries)
    │   │   └── ContextTooLong         context_too_long (even with images downscaled and dropped)
    │   ├── SessionLost                session_lost
    │   ├── TrajectoryIncomplete       trajectory_incomplete (judge: a screenshot, answer... missing)
    │   ├── RulesUnchecked             rules_unchecked (judge: rules that need a model or the DOM)
    │   ├── SiteUnreachable            site_unreachable (the task's website: DNS, refused, offline)
    │   ├── Overloaded                 overloaded      (server: past --max-sessions, 429)
    │   │   └── TooManyConnections     too_many_connections (server: past the per-client bound)
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
    │   ├── BlocklistError             bad_blocklist   (a blocklist file of reported websites)
    │   ├── SuiteError                 bad_suite       (an eval suite: unknown, unreadable, a bad field)
    │   ├── MissingDependency          missing_dependency (a package or program to install)
    │   ├── MissingObservation         missing_observation (a step's context cannot be rebuilt)
    │   ├── UnknownTask                unknown_task    (server: no such task id)
    │   ├── Unauthorized               unauthorized    (server: missing/wrong bearer token)
    │   ├── InvalidRequest             invalid_request (server: malformed request body)
    │   │   ├── RequestTooLarge        body_too_large
    │   │   ├── BadStartUrl            bad_start_url   (server: a start URL goto would refuse)
    │   │   ├── MalformedHttp          malformed_http  (server: not HTTP/1.1 it can parse, 400)
    │   │   └── RequestReadTimeout     request_timeout (server: a request stalled mid-way, 408)
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
        ├── StepConflict               step_conflict   (server: a used step_index, another action)
        └── SessionExpired             session_expired (server: the idle lease ran out)

Library exceptions (Playwright, httpx, openai) are translated at the boundary with
``raise ... from exc`` so that callers only ever catch these.
"""

from __future__ import annotations

from typing import Any

from webdojo.errors.agent import (
    AgentError,
    BadKey,
    BadTab,
    BadUrl,
    InvalidActionError,
    InvalidCoordinates,
    NetworkBlocked,
    ParseError,
    StaleElement,
    TextTooLong,
    UnknownElement,
)
from webdojo.errors.base import (
    Fault,
    WebdojoError,
)
from webdojo.errors.config import (
    ArchiveError,
    BadStartUrl,
    BlocklistError,
    ConfigError,
    EmptyTrainingData,
    ExampleTooLong,
    InvalidRequest,
    LabelFileError,
    MalformedHttp,
    MissingDependency,
    MissingImages,
    MissingObservation,
    ModelMismatch,
    NoRewards,
    RecordSchemaError,
    RequestReadTimeout,
    RequestTooLarge,
    ResumeMismatch,
    SuiteError,
    TaskFileError,
    TrainingError,
    Unauthorized,
    UnknownTask,
    ZimError,
)
from webdojo.errors.env import (
    ActionFailed,
    ActionTimeout,
    CacheMiss,
    DownloadTooLarge,
    EnvError,
    NavigationTimeout,
    PageCrashed,
    StartPageFailed,
    TabLimitReached,
    TooManyDownloads,
)
from webdojo.errors.info import ErrorInfo
from webdojo.errors.infra import (
    BrowserClosed,
    ChromiumNotFound,
    ContextTooLong,
    InfraError,
    InternalError,
    ModelDown,
    ModelError,
    ModelOutputInvalid,
    ModelTimeout,
    OutOfMemory,
    Overloaded,
    RulesUnchecked,
    ServerDown,
    ServerUnavailable,
    SessionLost,
    SiteUnreachable,
    TooManyConnections,
    TrajectoryIncomplete,
)
from webdojo.errors.state import (
    SessionClosed,
    SessionExpired,
    StateError,
    StepConflict,
    UnknownSession,
)

__all__ = [
    "ActionFailed",
    "ActionTimeout",
    "AgentError",
    "ArchiveError",
    "BadKey",
    "BadStartUrl",
    "BadTab",
    "BadUrl",
    "BlocklistError",
    "BrowserClosed",
    "CacheMiss",
    "ChromiumNotFound",
    "ConfigError",
    "ContextTooLong",
    "DownloadTooLarge",
    "EmptyTrainingData",
    "EnvError",
    "ErrorInfo",
    "ExampleTooLong",
    "Fault",
    "InfraError",
    "InternalError",
    "InvalidActionError",
    "InvalidCoordinates",
    "InvalidRequest",
    "LabelFileError",
    "MalformedHttp",
    "MissingDependency",
    "MissingImages",
    "MissingObservation",
    "ModelDown",
    "ModelError",
    "ModelMismatch",
    "ModelOutputInvalid",
    "ModelTimeout",
    "NavigationTimeout",
    "NetworkBlocked",
    "NoRewards",
    "OutOfMemory",
    "Overloaded",
    "PageCrashed",
    "ParseError",
    "RecordSchemaError",
    "RequestReadTimeout",
    "RequestTooLarge",
    "ResumeMismatch",
    "RulesUnchecked",
    "ServerDown",
    "ServerUnavailable",
    "SessionClosed",
    "SessionExpired",
    "SessionLost",
    "SiteUnreachable",
    "StaleElement",
    "StartPageFailed",
    "StateError",
    "StepConflict",
    "SuiteError",
    "TabLimitReached",
    "TaskFileError",
    "TextTooLong",
    "TooManyConnections",
    "TooManyDownloads",
    "TrainingError",
    "TrajectoryIncomplete",
    "Unauthorized",
    "UnknownElement",
    "UnknownSession",
    "UnknownTask",
    "WebdojoError",
    "ZimError",
    "all_codes",
    "from_info",
]


def all_codes() -> dict[str, type[WebdojoError]]:
    """Every stable code, mapped to its class (used by docs and tests)."""
    found: dict[str, type[WebdojoError]] = {}
    stack: list[type[WebdojoError]] = [WebdojoError]
    while stack:
        cls = stack.pop()
        found[cls.code] = cls
        stack.extend(cls.__subclasses__())
    return found


def from_info(info: ErrorInfo) -> WebdojoError:
    """The typed error that ``info`` stands for (the inverse of ``WebdojoError.info``): how an
    error comes back from the wire, a worker or a record. Fault and retryable are the class's.
    The details are set, not passed (a detail may be called "message"). A code this build
    does not know (a newer peer), or a class that cannot be made from a message alone, gives
    an ``InternalError`` naming the code."""
    cls = all_codes().get(info.code)
    exc: WebdojoError | None = None
    if cls is not None:
        try:
            exc = cls(info.message)
        except TypeError:  # a class with a constructor of its own
            exc = None
    extra: dict[str, Any] = {}
    if exc is None:
        exc, extra = InternalError(info.message), {"code": info.code}
    exc.details = {**(info.details or {}), **extra}
    return exc


# One public home: the classes print, pickle and are documented as ``webdojo.errors.X``,
# whichever module of the package defines them.
for _cls in (Fault, *all_codes().values()):
    _cls.__module__ = __name__
