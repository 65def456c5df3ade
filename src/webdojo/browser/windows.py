"""Windows past a session's tab cap, closed as Chromium creates them.

A page may open windows (``window.open``, ``target=_blank`` links and forms) in a loop. The
tab set keeps at most ``max_tabs`` pages, but Playwright reports a popup only once its first
navigation commits: by then the window has loaded and run its scripts, and a window whose
server never answers is never reported at all, so it would stay open and keep loading, unseen.

So the browser's page targets are followed through one browser-level CDP session per browser
(``WindowWatch``, ``Target.setDiscoverTargets``, started with the first session), which hands
each event to the window cap of its context (``WindowCap``, one per session): one session
for all, since every such session receives every context's events. A cap closes a window that
a page opens past the cap as soon as the target exists: before its first page commits (its
request may have gone out), so none of that page's scripts run. Each one is counted on the tab
set (``TabSet.refuse``), and the next observation tells the agent (``TabLimitReached``) once
they are closed. Pages the session opens itself (``new_tab``) have no opener and are never
closed here: ``TabSet.new_tab`` checks the cap before opening one.

The tab set still closes a page that Playwright reports past the cap (``TabSet.extra``): one
this watcher let through while the agent opened a tab, or one it refused whose close is still
on the way. Only the first kind is counted again; the target id tells them apart. Without the
watcher (its CDP session did not start), that is the only way windows are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from typing import Any

from playwright.async_api import Browser, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from webdojo.background import Background
from webdojo.browser.tabs import TabSet

_CALL_S = 5.0  # a call the browser process answers (never a page's renderer): a bound only
_REMEMBERED = 256  # refused windows remembered until Playwright reports them (within ms)


class WindowWatch:
    """The page targets of one browser, each event dispatched to its context's ``WindowCap``
    (an unknown context costs one dict lookup). Close with ``aclose``."""

    def __init__(self, browser: Browser) -> None:
        self._browser = browser
        self._cdp: CDPSession | None = None
        self._starting: asyncio.Future[None] | None = None  # shared by sessions opening
        self._caps: dict[str, WindowCap] = {}  # browserContextId -> its session's cap
        self._owners: dict[str, WindowCap] = {}  # open page target id -> its context's cap
        self._closed = False

    async def register(self, cap: WindowCap, page_cdp: CDPSession) -> bool:
        """Hand ``cap`` the events of the context of ``page_cdp`` (a CDP session of its only
        page) from now on. False when the watcher could not start (the tab set's fallback
        alone closes windows then). Raises PlaywrightError when the page is gone; the caller
        sets the deadline."""
        started, info = await asyncio.gather(self._started(), page_cdp.send("Target.getTargetInfo"))
        if not started:
            return False
        # The page's own event came before (ignored: its context was unknown), so it is
        # counted here; if it comes after, it is the same id again.
        target, context_id = info["targetInfo"]["targetId"], info["targetInfo"]["browserContextId"]
        cap.context_id = context_id
        cap.live.add(target)
        self._caps[context_id] = cap
        self._owners[target] = cap
        return True

    def unregister(self, cap: WindowCap) -> None:
        if cap.context_id is not None and self._caps.get(cap.context_id) is cap:
            del self._caps[cap.context_id]
        for target in cap.live:
            self._owners.pop(target, None)

    async def _started(self) -> bool:
        """Whether the CDP session follows the targets (started by the first caller; a
        failed start is tried again by the next session)."""
        if self._closed:
            return False
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
            self._starting.add_done_callback(_retrieve)
        starting = self._starting
        try:
            await asyncio.shield(starting)  # a caller's deadline does not end it for others
        except asyncio.CancelledError:
            if not starting.cancelled() or _cancelling():
                raise
            return False  # the watch closed meanwhile (the browser's host is closing)
        except (PlaywrightError, TimeoutError):
            if self._starting is starting:
                self._starting = None
            return False
        return True

    async def _start(self) -> None:
        async with asyncio.timeout(_CALL_S):
            cdp = await self._browser.new_browser_cdp_session()
        cdp.on("Target.targetCreated", self._on_created)
        cdp.on("Target.targetDestroyed", self._on_destroyed)
        try:
            async with asyncio.timeout(_CALL_S):
                # Reports the pages open now (no context of a session yet), then each one
                # created or closed.
                await cdp.send(
                    "Target.setDiscoverTargets", {"discover": True, "filter": [{"type": "page"}]}
                )
        except BaseException:
            await _detach(cdp)
            raise
        self._cdp = cdp

    def _on_created(self, event: dict[str, Any]) -> None:
        info = event["targetInfo"]
        cap = self._caps.get(info.get("browserContextId", ""))
        if cap is not None and cap.admit(info):
            self._owners[info["targetId"]] = cap

    def _on_destroyed(self, event: dict[str, Any]) -> None:
        cap = self._owners.pop(event["targetId"], None)
        if cap is not None:
            cap.live.discard(event["targetId"])

    async def close_target(self, target: str) -> None:
        """Resume the window, then close it. Chromium holds a new window until its debugger
        (Playwright) lets it run, and a page's ``window.open`` waits for that: a window
        closed while held never lets its opener go, and the opener hangs for good."""
        cdp = self._cdp
        if cdp is None:
            return
        with contextlib.suppress(PlaywrightError):  # it closed on its own first
            attached = await cdp.send(
                "Target.attachToTarget", {"targetId": target, "flatten": False}
            )
            resume = {"id": 1, "method": "Runtime.runIfWaitingForDebugger"}
            # A session of our own (not flattened: Playwright's CDPSession has no way to
            # address a child session otherwise); it ends with the window.
            await cdp.send(
                "Target.sendMessageToTarget",
                {"sessionId": attached["sessionId"], "message": json.dumps(resume)},
            )
        with contextlib.suppress(PlaywrightError):
            await cdp.send("Target.closeTarget", {"targetId": target})

    async def aclose(self) -> None:
        """Stop watching; idempotent, never raises (a dead browser included)."""
        self._closed = True
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
        cdp, self._cdp = self._cdp, None
        self._caps.clear()
        self._owners.clear()
        if cdp is not None:
            await _detach(cdp)


class WindowCap:
    """Closes windows opened past ``TabSet.max_tabs`` in one session's context (read at each
    window: ``adopt`` may change it)."""

    def __init__(self, tabs: TabSet, watch: WindowWatch) -> None:
        self._tabs = tabs
        self._watch = watch
        self.context_id: str | None = None  # set by the watch
        self.live: set[str] = set()  # the context's page targets that are open
        self._refused: deque[str] = deque(maxlen=_REMEMBERED)  # target ids, newest last
        self._closing = Background()

    async def start(self, page_cdp: CDPSession) -> None:
        """Watch from now on. ``page_cdp``: a CDP session of the context's only page, which
        names the context. The caller sets the deadline."""
        if await self._watch.register(self, page_cdp):
            self._tabs.extra = self._on_extra

    def admit(self, info: dict[str, Any]) -> bool:
        """A page target of the context was created: True if it stays open (followed until
        destroyed), False if it is a prerender (not a window) or refused (closing)."""
        if info.get("subtype"):
            return False
        target = info["targetId"]
        if info.get("openerId") and len(self.live) >= self._tabs.max_tabs:
            self._tabs.refuse()
            self._refused.append(target)
            self._closing.spawn(self._watch.close_target(target), quiet=True)
            return False
        self.live.add(target)
        return True

    def _on_extra(self, page: Page) -> None:
        self._closing.spawn(self._close_extra(page), quiet=True)

    async def _close_extra(self, page: Page) -> None:
        """A page Playwright reports past the cap: close it, and count it unless this watcher
        refused it already. A window this watcher kept is taken as a tab instead: Playwright
        reports windows in the order their pages load, so a refused one, still closing, may
        have been listed first and taken its place."""
        target = None  # it closed meanwhile: ours, or on its own
        with contextlib.suppress(TimeoutError):
            target = await asyncio.wait_for(_target_id(page), _CALL_S)
        if target is not None and target in self.live:
            self._tabs.admit(page)
            return
        if target is not None and target not in self._refused:
            self._tabs.refuse()
        with contextlib.suppress(PlaywrightError):
            await page.close()

    async def closed(self) -> None:
        """Until the windows refused so far are closed: an observation that tells of them
        comes after (a few CDP round trips)."""
        await self._closing.wait(_CALL_S)

    async def aclose(self) -> None:
        """Stop watching; idempotent, never raises (a dead browser included)."""
        self._watch.unregister(self)
        await self._closing.cancel()  # the context's close ends those windows anyway


async def _target_id(page: Page) -> str | None:
    """The page's CDP target id (None once it is closed)."""
    with contextlib.suppress(PlaywrightError):
        cdp = await page.context.new_cdp_session(page)
        try:
            info = await cdp.send("Target.getTargetInfo")
        finally:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()
        return str(info["targetInfo"]["targetId"])
    return None


async def _detach(cdp: CDPSession) -> None:
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(cdp.detach(), _CALL_S)


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _retrieve(future: asyncio.Future[None]) -> None:
    """Read a failed start's exception (every waiter may have left), so it is not logged."""
    if not future.cancelled():
        future.exception()
