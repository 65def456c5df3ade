"""Environment faults: the website misbehaved. The episode may go on."""

from __future__ import annotations

from webdojo.errors.base import Fault, WebdojoError


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


class StartPageFailed(EnvError):
    """The episode's start page answered an HTTP error (4xx/5xx): the environment is broken,
    not the agent, so the episode is a fault and never scored. ``details``: url, status."""

    code = "start_page_failed"


class DownloadTooLarge(EnvError):
    """A page's download would pass the session's cap on download bytes; it was cancelled
    (or deleted) and nothing of it stays on disk. Reported in ``Observation.downloads``."""

    code = "download_too_large"


class TooManyDownloads(EnvError):
    """A page's download would pass the session's cap on downloaded files; refused."""

    code = "too_many_downloads"


class TabLimitReached(EnvError):
    """A page opened windows past the session's cap on tabs (``SessionOptions.max_tabs``):
    they were closed as they opened, before loading anything. Told in the next observation's
    ``last_error``; ``details``: max_tabs, closed (how many)."""

    code = "tab_limit"


class CacheMiss(EnvError):
    """Replay in strict mode met a request that no recorded one matches. ``details`` hold the
    request (method, url) and its nearest recorded candidates."""

    code = "cache_miss"
