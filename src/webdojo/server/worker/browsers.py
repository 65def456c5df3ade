"""The browsers of one worker: the active one with its warm pool, and retired ones.

Warm pool. A new episode needs a fresh context and a first page: ~160 ms of browser work that
does not depend on the episode. The active browser keeps ``warm_contexts`` of them ready
(init scripts installed, never used), refilled in the background after each take, so that a
create costs only the start page's load. With ``warm_preload`` a warm page also loads ahead a
start URL that episodes keep opening (which one: ``preload.py``) and takes one observation:
an episode at that URL starts with its first observation only (``BrowserSession.preloaded``);
at another URL it takes a blank warm page, or a cold context. A warm context is handed out
once and never comes back: nothing an episode did reaches a warm page. Warm contexts have the
default context settings (``WorkerConfig.warm_options``); sessions that ask for another
viewport get a cold one. A page loaded ahead is handed only to an episode with the same
network policy. A start page that answers an HTTP error is not kept (``StartPageFailed``).

Recycling. After ``recycle_after_contexts`` contexts, or when the browser's processes use more
than ``max_browser_memory_mb`` (PSS, measured in the background), the active browser is
retired: it takes no new sessions, serves the ones it has, and is closed when the last one
closes (draining), while a fresh browser takes the new sessions. A browser whose process died
is retired the same way (DEAD): its sessions raise ``BrowserClosed`` until they are closed.
A watchdog notices the death within ``WATCH_S`` and relaunches at once, without waiting for
the next create, so that health (``browser_state``) goes back to "alive" on its own. With
``spare_browser`` the replacement is a browser launched ahead (``spare.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import Counter
from enum import StrEnum
from typing import Any

from webdojo.background import Background
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession, SessionState
from webdojo.errors import BrowserClosed, WebdojoError
from webdojo.observation import ObservationOptions
from webdojo.server.worker.config import WorkerConfig
from webdojo.server.worker.memory import ProcessTree
from webdojo.server.worker.preload import Preload, PreloadPolicy, loaded_for
from webdojo.server.worker.spare import SpareBrowser

_log = logging.getLogger(__name__)
_WARM_UP = ObservationOptions(jpeg_quality=80)  # a warm page's first (unused) screenshot

WATCH_S = 0.25  # how often the watchdog asks whether the active browser is still connected


class BrowserState(StrEnum):
    ACTIVE = "active"  # takes new sessions
    DRAINING = "draining"  # recycled: serves its sessions, closes when the last one ends
    DEAD = "dead"  # its process died: its sessions raise BrowserClosed until closed
    CLOSED = "closed"


class ManagedBrowser:
    """One BrowserHost and what the worker knows about it."""

    def __init__(self, host: BrowserHost) -> None:
        self.host = host
        self.state = BrowserState.ACTIVE
        self.contexts = 0  # contexts ever created on it, warm ones included
        self.sessions: set[BrowserSession] = set()  # episodes (warm contexts are not)
        self.warm: list[BrowserSession] = []
        self.launched_at = time.monotonic()


class Browsers:
    """Hands out sessions on the active browser; launches, recycles and relaunches browsers."""

    def __init__(self, config: WorkerConfig) -> None:
        self._config = config
        self._active: ManagedBrowser | None = None
        self._retired: list[ManagedBrowser] = []
        self._lock = asyncio.Lock()  # one launch / retirement at a time
        self._recycling = False  # a planned recycle is launching the next browser
        self._refill: asyncio.Task[None] | None = None
        self._monitor: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._background = Background()
        self._procs = ProcessTree()
        self._spare = SpareBrowser(config.browser, config.spare_browser)
        self.counts: Counter[str] = Counter()
        self._preload = PreloadPolicy(
            config.warm_options, config.warm_contexts, enabled=config.warm_preload
        )

    async def start(self) -> None:
        await self._ensure_active()
        self._schedule_refill()
        self._monitor = asyncio.create_task(self._measure_memory())
        self._watchdog = asyncio.create_task(self._watch())

    async def open(
        self, options: SessionOptions, start_url: str | None = None
    ) -> tuple[BrowserSession, ManagedBrowser]:
        """A fresh session on the active browser (warm if its settings allow; loaded at
        ``start_url`` already if a warm page preloaded it). A browser found dead is replaced
        once; a second failure raises ``BrowserClosed``."""
        for attempt in range(2):
            browser = await self._ensure_active()
            try:
                session = self._take_warm(browser, options, start_url) or await self._cold(
                    browser, options
                )
            except BrowserClosed:
                if attempt or browser.host.is_alive():
                    raise
                continue
            browser.sessions.add(session)
            self._preload.opened(start_url, options)
            return session, browser
        raise AssertionError("unreachable")

    async def release(self, session: BrowserSession, browser: ManagedBrowser) -> None:
        """Close an episode's session; a retired browser closes with its last session."""
        browser.sessions.discard(session)
        with contextlib.suppress(WebdojoError):
            await session.aclose()
        if browser is not self._active and not browser.sessions:
            await self._close(browser)

    def check(self) -> None:
        """After an operation met a dead browser: replace it now rather than at the next
        create, so that the warm pool is ready again."""
        active = self._active
        if active is not None and not active.host.is_alive():
            self._background.spawn(self._replace_dead())

    # --- launching and retiring -------------------------------------------------------------

    async def _ensure_active(self) -> ManagedBrowser:
        async with self._lock:
            active = self._active
            if active is not None and not active.host.is_alive():
                _log.warning(
                    "the browser died with %d sessions; launching another", len(active.sessions)
                )
                self.counts["browser_restarts"] += 1
                await self._retire(active, BrowserState.DEAD)
            elif active is not None and self._worn_out(active):
                _log.info("recycling the browser after %d contexts", active.contexts)
                self.counts["browser_recycles"] += 1
                await self._retire(active, BrowserState.DRAINING)
                self._recycling = True
            if self._active is None:
                try:
                    self._active = ManagedBrowser(await self._spare.take())
                finally:
                    self._recycling = False
            return self._active

    def browser_state(self) -> str:
        """The active browser, for health: "alive"; "dead" (its process died, not replaced
        yet); "relaunching" (a new one is being launched after a death); "recycling" (the
        planned replacement of a worn-out one, which the retired one still serves meanwhile);
        "none" (closed). Dead as soon as its process is, before Playwright's disconnect event
        (``is_alive``): steps on it already fail by then."""
        active = self._active
        if active is not None:
            return "alive" if active.host.is_alive() else "dead"
        if self._lock.locked():
            return "recycling" if self._recycling else "relaunching"
        return "none"

    async def _watch(self) -> None:
        """Replace a dead browser as soon as it is seen, not at the next create."""
        while True:
            await asyncio.sleep(WATCH_S)
            active = self._active
            if active is not None and not active.host.is_alive() and not self._lock.locked():
                await self._replace_dead()

    async def _replace_dead(self) -> None:
        with contextlib.suppress(WebdojoError):
            await self._ensure_active()
            self._schedule_refill()

    async def _measure_memory(self) -> None:
        while True:
            await asyncio.to_thread(self._procs.measure, self._browser_pids())
            await asyncio.sleep(self._config.memory_check_interval_s)

    def active_process(self) -> tuple[int, float] | None:
        """The active browser's process as (pid, psutil create_time), if known: a pool on
        the same machine checks it between heartbeats (``process_running``)."""
        host = self._active.host if self._active is not None else None
        if host is None or host.pid is None or host.started is None:
            return None
        return host.pid, host.started

    def _browser_pids(self) -> list[int]:
        browsers = [*self._retired, *([self._active] if self._active else [])]
        return [b.host.pid for b in browsers if b.host.pid is not None]

    def _worn_out(self, browser: ManagedBrowser) -> bool:
        if browser.contexts >= self._config.recycle_after_contexts:
            return True
        if any(b.state is BrowserState.DRAINING for b in self._retired):
            return False  # the tree's memory still counts the old browser: judge it later
        if self._procs.measured_at < browser.launched_at:
            return False  # measured before this browser existed
        return self._procs.pss_mb > self._config.max_browser_memory_mb

    async def _retire(self, browser: ManagedBrowser, state: BrowserState) -> None:
        browser.state = state
        self._active = None
        warm, browser.warm = browser.warm, []
        for session in warm:
            with contextlib.suppress(WebdojoError):
                await session.aclose()
        if browser.sessions:
            self._retired.append(browser)
        else:
            self._background.spawn(self._close(browser))

    async def _close(self, browser: ManagedBrowser) -> None:
        if browser.state is BrowserState.CLOSED:
            return
        browser.state = BrowserState.CLOSED
        if browser in self._retired:
            self._retired.remove(browser)
        with contextlib.suppress(WebdojoError):
            await browser.host.aclose()

    # --- contexts ---------------------------------------------------------------------------

    def _take_warm(
        self, browser: ManagedBrowser, options: SessionOptions, start_url: str | None
    ) -> BrowserSession | None:
        """A warm session preloaded at ``start_url`` if there is one, else a blank one. A page
        preloaded at another URL is never handed out: its load may have left storage that the
        episode's own start page would not have."""
        if options.context_key() != self._config.warm_options.context_key():
            return None
        for session in [s for s in browser.warm if s.state is not SessionState.OPEN]:
            browser.warm.remove(session)
            self._background.spawn(session.aclose())
        ready = [s for s in browser.warm if loaded_for(s, start_url, options)]
        ready = ready or [s for s in browser.warm if s.preloaded is None]
        if not ready:
            return None
        session = ready[0]
        browser.warm.remove(session)
        session.adopt(options)
        self.counts["warm_hits"] += 1
        self.counts["preloaded_hits"] += session.preloaded is not None
        return session

    async def _cold(self, browser: ManagedBrowser, options: SessionOptions) -> BrowserSession:
        session = await browser.host.new_session(options)
        browser.contexts += 1
        self.counts["contexts_created"] += 1
        self.counts["cold_creates"] += 1
        return session

    def refill(self) -> None:
        """Top the warm pool up in the background. The worker calls this once a create has
        its first observation, not when it takes the warm context: a refill running during
        the start page's load competes with it for the browser and eats what it saved."""
        if self._preload.refilling():  # another start URL to load ahead (preload.py)
            self._drop_stale(self._preload.wanted_url)
        self._schedule_refill()

    def _drop_stale(self, url: str | None) -> None:
        """Close warm pages preloaded at another start URL: only an episode at exactly that
        URL may take one (the page's load may have written the site's storage), so they would
        wait for an episode that may never come, while the pool refills at ``url``."""
        active = self._active
        if active is None:
            return
        stale = [s for s in active.warm if s.preloaded not in (None, url)]
        active.warm = [s for s in active.warm if s not in stale]
        for session in stale:
            self._background.spawn(session.aclose())

    def _schedule_refill(self) -> None:
        if self._config.warm_contexts and (self._refill is None or self._refill.done()):
            self._refill = asyncio.create_task(self._fill_warm_pool())

    async def _fill_warm_pool(self) -> None:
        """One context at a time, in the background; stops at the first failure (the next
        create finds out what is wrong and replaces the browser)."""
        while True:
            browser = self._active
            if browser is None or not browser.host.is_alive():
                return
            session = self._blank_to_load(browser)
            if session is None:
                if (
                    len(browser.warm) >= self._config.warm_contexts
                    or browser.contexts >= self._config.recycle_after_contexts
                ):
                    return
                try:
                    session = await browser.host.new_session(self._config.warm_options)
                except WebdojoError:
                    return
                browser.contexts += 1
                self.counts["contexts_created"] += 1
            if not await self._ready(session):
                return  # closed; the next refill tries again (blank, if the start page failed)
            if browser is self._active:
                browser.warm.append(session)
            else:  # retired while we were creating it
                await session.aclose()

    async def _ready(self, session: BrowserSession) -> bool:
        """Load the latest start URL in a warm page, and observe it once (a blank page too:
        its first screenshot readies the renderer). False (the session closed) when the page
        did not load or answered an HTTP error: it is not used, and that URL not loaded
        again."""
        target = self._preload_target()
        url = None if target is None else target.url
        try:
            if target is not None:
                # checked as the episodes' own start page: under their allowed origins
                session.adopt(dataclasses.replace(session.options, network=target.network))
                await session.goto(target.url)
            await session.observe(_WARM_UP)
        except WebdojoError as exc:
            _log.info("could not ready a warm page at %s (%s)", url or "about:blank", exc)
            if url is not None:
                self._preload.failed(url)
                self.counts["preload_failures"] += 1
            with contextlib.suppress(WebdojoError):
                await session.aclose()
            return False
        if url is not None:
            session.preloaded = url
            self.counts["preloads"] += 1
        return True

    def _preload_target(self) -> Preload | None:
        active = self._active
        return self._preload.target(active.warm if active else [])

    def _blank_to_load(self, browser: ManagedBrowser) -> BrowserSession | None:
        """A full pool's blank page to load the start URL in, taken out of the pool meanwhile.
        The start URL may become wanted while a refill is already filling the pool with blank
        pages; without this the pool would stay blank until the next refill."""
        target = self._preload_target()  # the same test as the load's: else it'd never end
        if (
            len(browser.warm) < self._config.warm_contexts
            or target is None
            or any(s.preloaded == target.url for s in browser.warm)
        ):
            return None
        blank = next((s for s in browser.warm if s.preloaded is None), None)
        if blank is not None:
            browser.warm.remove(blank)
        return blank

    # --- reporting and shutdown -------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        active = self._active
        return {
            "browsers": len(self._retired) + (active is not None),
            "browsers_draining": sum(b.state is BrowserState.DRAINING for b in self._retired),
            "browser_state": self.browser_state(),  # alive / dead / relaunching / none
            "warm_ready": len(active.warm) if active else 0,
            "contexts_created": self.counts["contexts_created"],
            "warm_hits": self.counts["warm_hits"],
            "preloads": self.counts["preloads"],
            "preloaded_hits": self.counts["preloaded_hits"],
            "preload_failures": self.counts["preload_failures"],  # start pages that did not load
            "cold_creates": self.counts["cold_creates"],
            "browser_restarts": self.counts["browser_restarts"],
            "browser_recycles": self.counts["browser_recycles"],
            "pss_mb": round(self._procs.pss_mb, 1),  # as of the last measurement
            "rss_mb": round(self._procs.rss_mb, 1),
            "browser_pids": self._browser_pids(),
            "browser_process": self.active_process(),  # the active one's (pid, create time)
            "spare_pid": self._spare.pid,  # a browser launched ahead (spare_browser), if ready
            "spares_taken": self._spare.taken,
        }

    async def aclose(self) -> None:
        await self._background.cancel()
        for task in [self._refill, self._monitor, self._watchdog]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, WebdojoError):
                    await task
        await self._spare.aclose()
        # Under the lock: a launch in flight (a create that found the browser dead) ends
        # first and its browser is closed here. Left running, it would die with the worker's
        # Playwright driver, killed at exit, leaving its profile and artifacts in TMPDIR.
        async with self._lock:
            browsers = [*self._retired, *([self._active] if self._active else [])]
            self._active = None
        for browser in browsers:
            await self._close(browser)
