"""Per-session settings (a frozen dataclass: internal config, not outside data)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.cache.record_spec import RecordSpec
from webdojo.errors import ConfigError


@dataclass(frozen=True)
class SessionOptions:
    """How one episode's browser context is set up and how long its operations may take."""

    viewport_width: int = 1280  # CSS pixels; screenshots have exactly this size
    viewport_height: int = 720
    action_timeout_s: float = 10.0  # deadline of one action (click, type, ...) and of a capture
    navigation_timeout_s: float = 15.0  # deadline of a page load (goto, back, a navigating click)
    popup_wait_s: float = 2.0  # how long to wait for a window the page said it was opening
    locale: str = "en-US"  # navigator.language and Accept-Language
    timezone_id: str = "UTC"  # fixed, so that dates on pages are reproducible
    user_agent: str | None = None  # None = Chromium's own
    color_scheme: Literal["light", "dark", "no-preference"] = "light"
    final_text_chars: int = 20_000  # cap on the page text kept in FinalState
    max_tabs: int = 10  # tabs per session; pages a site opens past it are closed at once
    max_download_mb: float = 50.0  # bytes a session's downloads may hold on disk together
    max_downloads: int = 20  # files a session may download; past either cap they are refused
    archive: str | None = None  # serve every request from this cache archive (no network)
    record: RecordSpec | None = None  # record every request into a cache archive
    # which hosts and schemes the browser may reach, the start URL included; on by default
    # (private ranges blocked, except the origins the env allows: its own local servers)
    network: NetworkPolicy = field(default_factory=NetworkPolicy)

    def __post_init__(self) -> None:
        if not (self.viewport_width >= 100 and self.viewport_height >= 100):
            raise ConfigError(
                f"viewport {self.viewport_width}x{self.viewport_height} is too small (min 100x100)"
            )
        if self.archive and self.record:
            raise ConfigError("a session replays an archive or records one, not both")
        if self.max_tabs < 1:
            raise ConfigError(f"max_tabs must be at least 1, not {self.max_tabs}")
        if self.max_download_mb < 0 or self.max_downloads < 0:
            raise ConfigError("max_download_mb and max_downloads cannot be negative")
        for name in ("action_timeout_s", "navigation_timeout_s", "popup_wait_s"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive, not {getattr(self, name)!r}")

    def allowing(self, *origins: str) -> SessionOptions:
        """The same options with these origins (``http://127.0.0.1:8000``) reachable even on
        loopback: how the env lets sessions reach its own local servers."""
        return replace(self, network=self.network.with_origins(*origins))

    def context_key(self) -> tuple[object, ...]:
        """The settings fixed when the browser context is created. Two options with the same
        key can share a pre-created (warm) context; the others (deadlines, caps, the allowed
        origins: the proxy reads its policy per connection) are per call."""
        return (
            self.viewport_width,
            self.viewport_height,
            self.locale,
            self.timezone_id,
            self.user_agent,
            self.color_scheme,
            self.archive,
            self.record,
            replace(self.network, allow_origins=()),
        )
