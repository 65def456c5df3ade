"""Which start page a worker's warm pages load ahead, if any (``warm_preload``).

A training run opens many episodes of one task, so a start URL that two episodes in a row
opened is loaded ahead in the warm pages, kept while episodes come to it, and dropped at
another one: pages loaded for URLs that no episode asks for would only cost CPU. A pool of two
or more keeps one page blank, so that an episode at another start URL still gets a warm
context; a URL that failed to load ahead is not tried again. Pure bookkeeping: the worker's
``Browsers`` does the loading (``browsers.py``).
"""

from __future__ import annotations

import dataclasses

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession


@dataclasses.dataclass(frozen=True)
class Preload:
    """A start URL to load ahead, under the network policy of the episodes that open it."""

    url: str
    network: NetworkPolicy


class PreloadPolicy:
    """Follows the start URLs episodes open and says what warm pages load ahead."""

    def __init__(self, warm_options: SessionOptions, pool_size: int, enabled: bool) -> None:
        self._warm_options = warm_options
        self._pool_size = pool_size
        self._enabled = enabled
        self._latest: Preload | None = None  # the start page of the last session handed out
        self._previous_url: str | None = None  # ... and of the one before it
        self._wanted: Preload | None = None  # what warm pages load ahead (set at refill)
        self._failed: set[str] = set()  # start URLs that did not load ahead: not again

    @property
    def wanted_url(self) -> str | None:
        return None if self._wanted is None else self._wanted.url

    def opened(self, start_url: str | None, options: SessionOptions) -> None:
        """A session was handed out for ``start_url``."""
        self._latest = None if start_url is None else Preload(start_url, options.network)

    def refilling(self) -> bool:
        """The pool is about to be topped up: take the latest start URL into account. True
        when the URL to load ahead changed (pages loaded at another one are stale then)."""
        latest, self._latest = self._latest, None
        if latest is None:
            return False
        repeated = latest.url in (self._previous_url, self.wanted_url)
        self._previous_url = latest.url
        if not repeated:
            changed = self._wanted is not None
            self._wanted = None
            return changed
        changed = latest.url != self.wanted_url
        self._wanted = latest  # the latest episodes' network policy, even at the same URL
        return changed

    def failed(self, url: str) -> None:
        self._failed.add(url)

    def target(self, warm: list[BrowserSession]) -> Preload | None:
        """What the next warm page loads ahead, given the pool ``warm``; None: a blank page."""
        wanted = self._wanted
        if (
            not self._enabled
            or wanted is None
            or wanted.url in self._failed
            or not self._fits_warm(wanted.network)
            or not self._room(warm)
        ):
            return None
        return wanted

    def _fits_warm(self, network: NetworkPolicy) -> bool:
        """Whether episodes under ``network`` take warm contexts (it differs from the warm
        options' at most in its allowed origins): only then is loading ahead for them useful."""
        warm = self._warm_options
        return dataclasses.replace(warm, network=network).context_key() == warm.context_key()

    def _room(self, warm: list[BrowserSession]) -> bool:
        """A pool of two or more keeps one page blank."""
        preloaded = sum(s.preloaded is not None for s in warm)
        return self._pool_size == 1 or preloaded < self._pool_size - 1


def loaded_for(session: BrowserSession, start_url: str | None, options: SessionOptions) -> bool:
    """A warm page loaded ahead at exactly this start URL under exactly this network policy:
    one loaded with other allowed origins may hold what the episode's policy would refuse."""
    return (
        session.preloaded is not None
        and session.preloaded == start_url
        and session.options.network == options.network
    )
