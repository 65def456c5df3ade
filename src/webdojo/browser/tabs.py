"""The tabs of one session: which is active, popups that became tabs, dialogs, crashes.

Every page of the session's context is a tab: the first page, ``new_tab`` pages, and popups
(``target=_blank`` links, ``window.open``), which arrive through the context's ``page`` event.
A popup becomes the active tab at the next ``adopt_new`` call, which the session makes right
after an action and before each observation, so the active tab never changes between an
observation and the action that refers to it.

Closing the last tab opens a blank one: a session always has at least one tab. A session has at
most ``max_tabs``: windows past it are closed at once (windows.py), counted in ``refused``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Dialog,
    Download,
    Frame,
    Page,
    Request,
)
from playwright.async_api import Error as PlaywrightError

from webdojo.background import Background
from webdojo.browser import page_scripts
from webdojo.errors import BadTab
from webdojo.observation import Tab


class TabState:
    """One page plus what its event handlers saw: load counts for navigation waits, crashes."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.loads = 0  # main-frame load events so far
        self.commits = 0  # main-frame navigations committed (same-document ones included)
        self.aborts = 0  # main-frame navigations that ended without a load (failed, download)
        self.requests = 0  # main-frame navigation requests sent (a page that does not answer
        # without one since the action is busy, not loading: executor._check)
        self.crashed = False
        self.doc: str | None = None  # token of the document last seen (hooks.js); falsy =
        # unknown, or a document without hooks
        self.navs = 0  # hooks.js counters of that document, as last read
        self.popups = 0
        self.submits = 0
        # Title read by the post-action check when the document stayed the same; the next
        # capture uses it instead of reading it again (one evaluate less per in-page step).
        self.title_hint: str | None = None
        # (commits, infinite animations paused): the page was readied for a screenshot by the
        # post-action check or an observation's first read, in the document of that commit
        # count (screenshot.py)
        self.prepared: tuple[int, int] | None = None
        self.page_done = False  # the page's done global, as last read (Observation.page_done)
        self.changed = asyncio.Event()  # set on each of the above; waiters clear it
        self.cut = False  # its document hung once and had its script stopped (hung.py)
        self.deadlines: set[asyncio.Timeout] = set()  # guarded operations on it (guard.py)
        self._cdp: asyncio.Future[CDPSession] | None = None

    def note(self, found: dict[str, Any]) -> tuple[bool, bool, bool]:
        """Record a hooks.js reading (act.js ``check``). Returns what happened since the
        previous reading: (a navigation started, a popup opened, a form was submitted)."""
        same = found.get("doc") == self.doc
        before = (self.navs, self.popups, self.submits) if same else (0, 0, 0)
        replaced = self.doc is not None and not same  # a new document, maybe still loading
        # A document whose hooks have not run yet (just replaced) reports null counters.
        navs, popups, submits = (int(found.get(k) or 0) for k in ("navs", "popups", "submits"))
        navigated = navs > before[0] or (replaced and found.get("ready") != "complete")
        self.doc, self.navs, self.popups, self.submits = found.get("doc"), navs, popups, submits
        self.page_done = found.get("done") is True
        return navigated, popups > before[1], submits > before[2]

    def seen(self) -> dict[str, Any] | None:
        """The document and hooks.js counters as last read (None: no document known)."""
        if not self.doc:
            return None
        return {"doc": self.doc, "navs": self.navs, "popups": self.popups, "submits": self.submits}

    def keep_prepared(self, commits: int, paused: int | None) -> None:
        """Keep what a read that readied the page for a screenshot paused (None: it readied
        nothing), for the capture that follows. ``commits``: the count when the read began;
        a document committed since voids it (``take_prepared``)."""
        if paused is not None:
            self.prepared = (commits, paused)

    def take_prepared(self) -> int | None:
        """How many infinite animations the post-action check paused, if it readied this
        document for a screenshot (None: it did not, or the document changed since)."""
        prepared, self.prepared = self.prepared, None
        if prepared is None or prepared[0] != self.commits:
            return None
        return prepared[1]

    async def ensure_hooks(self) -> None:
        """Install hooks.js in a document that lacks it. The context's init script runs in
        every new document, yet CI once saw a page without it under heavy load; there a
        navigating click looks like a busy page. Costs nothing while the hooks are in place.
        A document without them reads as no token (act.js) or an empty one (dom.js)."""
        if self.doc:
            return
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(self.page.evaluate(page_scripts.INIT_JS), 5)

    def mark(self) -> tuple[int, int]:
        return self.loads, self.aborts

    def bump(self, attr: str) -> None:
        setattr(self, attr, getattr(self, attr) + 1)
        self.changed.set()

    def on_crash(self) -> None:
        """Also end every guarded operation on the page now: a call to a dead renderer may
        never answer (a CDP call, an evaluate waiting for a navigation's document), and the
        guard turns the expired deadline into ``PageCrashed``."""
        self.crashed = True
        self.changed.set()
        expire(self.deadlines)

    async def wait_until(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()`` holds, re-checked after each event; the caller sets the
        deadline."""
        while not done():
            self.changed.clear()
            await self.changed.wait()

    async def wait_commit(self, since: int) -> None:
        """Wait for a main-frame commit after the ``since``-th one."""
        await self.wait_until(lambda: self.commits > since)

    async def wait_loaded(self, mark: tuple[int, int]) -> None:
        """Wait for a load (or an aborted navigation) after ``mark``. Returns early if the page
        crashes; the caller checks ``crashed``."""
        await self.wait_until(lambda: self.loads > mark[0] or self.aborts > mark[1] or self.crashed)

    async def stop_loading(self) -> None:
        """Cancel a pending navigation (CDP Page.stopLoading). ``window.stop()`` cannot: an
        evaluate hangs while a browser-initiated navigation is pending, and screenshots then
        time out until the navigation is cancelled."""
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for((await self.cdp()).send("Page.stopLoading"), 5)

    def attach_cdp(self) -> None:
        """Open the page's own CDP session in the background, as soon as the tab exists: a
        session attached once the page is busy in JavaScript gets no answer at all, not even
        to ``Runtime.terminateExecution`` (hung.py)."""
        if self._cdp is None:
            self._cdp = asyncio.ensure_future(self.page.context.new_cdp_session(self.page))
            self._cdp.add_done_callback(_retrieve)

    async def read(self, fn: str, args: dict[str, Any]) -> Any:
        """page_scripts.read through this page's CDP session (its wait for the session
        included, under the caller's deadline)."""
        return await page_scripts.read(await self.cdp(), fn, args)

    async def cdp(self) -> CDPSession:
        """The page's CDP session (the caller sets the deadline; waiting does not cancel it)."""
        self.attach_cdp()
        assert self._cdp is not None
        return await asyncio.shield(self._cdp)


def expire(deadlines: set[asyncio.Timeout]) -> None:
    """End every operation running under these deadlines now (their guards say why)."""
    now = asyncio.get_running_loop().time()
    for deadline in list(deadlines):
        if not deadline.expired():
            with contextlib.suppress(RuntimeError):  # already leaving
                deadline.reschedule(now)


class TabSet:
    """The ordered tabs of one browser context and the active one."""

    def __init__(self, context: BrowserContext, max_tabs: int = 10) -> None:
        self.context = context
        self.max_tabs = max_tabs  # a page opening windows in a loop cannot grow the session
        self.refused = 0  # windows closed at once past max_tabs, not yet told (take_refused)
        self.extra: Callable[[Page], None] = self._close_extra  # a page past max_tabs
        self._closing = Background()  # tabs closing (a hung page takes about 0.5 s)
        self.tabs: list[TabState] = []
        self._active: TabState | None = None
        self._new: list[TabState] = []  # opened by the page, not yet made active
        self.opened = 0  # pages ever attached or refused (lets a waiter see a popup arrive)
        self.page_event = asyncio.Event()
        self.dialogs: list[str] = []  # dismissed since the last observation
        self.context_closed = False
        context.on("page", self._on_page)
        context.on("close", lambda _context: setattr(self, "context_closed", True))

    # --- membership ---------------------------------------------------------------------

    def _on_page(self, page: Page) -> None:
        # A window the cap watcher closed (windows.py) still arrives, closed already.
        if page.is_closed() or self.find(page) is not None:
            return
        if len(self.tabs) >= self.max_tabs:
            self.extra(page)
            return
        self.admit(page)

    def admit(self, page: Page) -> None:
        """Take ``page`` as a tab (windows.py: one the watcher kept, reported after a window it
        refused took its place in this list while closing)."""
        if not page.is_closed() and self.find(page) is None:
            self._new.append(self.attach(page))

    def _close_extra(self, page: Page) -> None:
        """A page past ``max_tabs``: closed, and counted (windows.py replaces this)."""
        self.refuse()
        self._closing.spawn(_close_quietly(page))

    def refuse(self) -> None:
        """Count a window closed at once because the session had ``max_tabs`` already."""
        self.refused += 1
        self.opened += 1  # a waiter for the popup need not wait out its deadline
        self.page_event.set()

    def take_refused(self) -> int:
        """Windows refused since the last call (the observation tells the agent)."""
        refused, self.refused = self.refused, 0
        return refused

    def drop_prepared(self) -> None:
        """Forget what post-action checks readied for a screenshot that was not taken. What
        they paused plays again after the document's next capture (shot.js keeps the list)."""
        for tab in self.tabs:
            tab.prepared = None

    def find(self, page: Page) -> TabState | None:
        return next((t for t in self.tabs if t.page is page), None)

    def attach(self, page: Page) -> TabState:
        """Start tracking a page (idempotent)."""
        found = self.find(page)
        if found is not None:
            return found
        tab = TabState(page)
        tab.attach_cdp()
        self.tabs.append(tab)
        self.opened += 1
        self.page_event.set()
        page.on("load", lambda _page: tab.bump("loads"))
        page.on("framenavigated", lambda frame: self._on_frame_navigated(tab, frame))
        page.on("crash", lambda _page: tab.on_crash())
        page.on("close", lambda _page: self._on_close(tab))
        page.on("dialog", self._on_dialog)
        page.on("download", lambda _d: self._on_download(tab, _d))
        page.on("requestfailed", lambda request: self._on_request_failed(tab, request))
        page.on("request", lambda request: self._on_request(tab, request))
        return tab

    def drop(self, tab: TabState) -> None:
        """Stop tracking a tab and close it in the background (a hung page takes about 0.5 s
        to close: Chromium waits for its unload first)."""
        self._on_close(tab)
        self._closing.spawn(_close_quietly(tab.page))

    def _on_close(self, tab: TabState) -> None:
        if tab not in self.tabs:
            return
        index = self.tabs.index(tab)
        self.tabs.remove(tab)
        if tab in self._new:
            self._new.remove(tab)
        if self._active is tab:
            # "Close the current tab and switch to the previous one."
            self._active = self.tabs[max(index - 1, 0)] if self.tabs else None
        tab.changed.set()

    def _on_frame_navigated(self, tab: TabState, frame: Frame) -> None:
        if frame.parent_frame is None:
            tab.cut = False  # a new document: its predecessor's hang says nothing about it
            tab.bump("commits")

    def _on_download(self, tab: TabState, download: Download) -> None:
        tab.bump("aborts")  # the navigation that started a download is over (downloads.py)

    def _on_request(self, tab: TabState, request: Request) -> None:
        with contextlib.suppress(PlaywrightError):
            if request.is_navigation_request() and request.frame == tab.page.main_frame:
                tab.bump("requests")

    def _on_request_failed(self, tab: TabState, request: Request) -> None:
        with contextlib.suppress(PlaywrightError):
            if request.is_navigation_request() and request.frame == tab.page.main_frame:
                tab.bump("aborts")

    async def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}".rstrip(": "))
        # beforeunload is accepted so that the agent's navigation goes ahead; everything else
        # is dismissed (alert: OK, confirm: Cancel, prompt: no value).
        with contextlib.suppress(PlaywrightError):
            if dialog.type == "beforeunload":
                await dialog.accept()
            else:
                await dialog.dismiss()

    # --- the active tab -----------------------------------------------------------------

    @property
    def current(self) -> TabState:
        if self._active is None:
            raise LookupError("the session has no open tab")
        return self._active

    def has_current(self) -> bool:
        return self._active is not None

    def activate(self, tab: TabState) -> None:
        if tab in self._new:
            self._new.remove(tab)
        self._active = tab

    def index(self, tab: TabState) -> int:
        return self.tabs.index(tab)

    async def new_tab(self) -> TabState:
        if len(self.tabs) >= self.max_tabs:
            raise BadTab(f"this session has {len(self.tabs)} tabs, the most it may have")
        tab = self.attach(await self.context.new_page())
        self.activate(tab)
        return tab

    async def ensure_tab(self) -> TabState:
        """The active tab; a fresh blank one when every tab has been closed."""
        if self._active is None:
            return await self.new_tab()
        return self._active

    async def close_current(self) -> None:
        tab = self.current
        await tab.page.close()
        self._on_close(tab)  # the close event may come later; this is idempotent
        await self.ensure_tab()

    def pending_popups(self) -> bool:
        """Whether the page opened a window that the next ``adopt_new`` will switch to."""
        return any(not t.page.is_closed() for t in self._new)

    def adopt_new(self) -> TabState | None:
        """Make the newest popup the active tab; returns it (None if there was none)."""
        fresh = [t for t in self._new if not t.page.is_closed()]
        self._new.clear()
        if not fresh:
            return None
        self.activate(fresh[-1])
        return fresh[-1]

    async def wait_for_page(self, since: int, seconds: float) -> bool:
        """Wait until more than ``since`` pages arrived (attached or refused); False after
        ``seconds``."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while self.opened <= since:
                    self.page_event.clear()
                    await self.page_event.wait()
        return self.opened > since

    async def purge_crashed(self) -> None:
        """Close crashed background tabs (a crashed active tab ends the session instead)."""
        for tab in [t for t in self.tabs if t.crashed and t is not self._active]:
            with contextlib.suppress(PlaywrightError):
                await tab.page.close()
            self._on_close(tab)

    def drain_dialogs(self) -> list[str]:
        out, self.dialogs = self.dialogs, []
        return out

    async def describe(self, active_title: str) -> list[Tab]:
        """The tab list of an observation. Background titles are read concurrently and
        best-effort: a hung background tab must not block the step."""

        async def title(tab: TabState) -> str:
            if tab is self._active:
                return active_title
            with contextlib.suppress(PlaywrightError, TimeoutError):
                return await asyncio.wait_for(tab.page.title(), 2.0)
            return ""

        titles = await asyncio.gather(*(title(t) for t in self.tabs))
        return [
            Tab(index=i, url=t.page.url, title=titles[i], active=t is self._active)
            for i, t in enumerate(self.tabs)
        ]


async def _close_quietly(page: Page) -> None:
    with contextlib.suppress(PlaywrightError):
        await page.close()


def _retrieve(future: asyncio.Future[CDPSession]) -> None:
    """Read a background CDP attach's failure (a page closed at once), so it is not logged."""
    if not future.cancelled():
        future.exception()
