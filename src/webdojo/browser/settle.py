"""After an input action: wait for what it started (a page load, a form's navigation, a popup).

The executor's input is quick; what it sets off is not. hooks.js records a cross-document
navigation, a submission or a popup, and one evaluate (act.js ``check``) reads that record.
Only then is a load waited for, counted by the tab's load events from before the action. The
read runs under the navigation deadline while a navigation may hold it, and under the action
deadline otherwise, so a busy page and a hung navigation give different errors.

When the observation that follows takes a screenshot, the same evaluate readies the page for
it if nothing was started (page_scripts.py ``CHECK_AND_PREPARE``): one driver round trip less
per in-page step.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Error as PlaywrightError

from webdojo.browser.guard import Guard, is_navigation_race
from webdojo.browser.options import SessionOptions
from webdojo.browser.tabs import TabSet, TabState
from webdojo.errors import ActionTimeout, NavigationTimeout, PageCrashed


class Settler:
    def __init__(self, tabs: TabSet, guard: Guard, options: SessionOptions) -> None:
        self._tabs = tabs
        self._guard = guard
        self._opts = options

    async def wait_for_load(self, tab: TabState, mark: tuple[int, int], what: str) -> None:
        try:
            async with self._guard(what, self._opts.navigation_timeout_s, NavigationTimeout):
                await tab.wait_loaded(mark)
        except NavigationTimeout:
            await tab.stop_loading()
            raise
        if tab.crashed:
            raise PageCrashed(f"the page crashed during {what}")

    async def settle(
        self,
        tab: TabState,
        mark: tuple[int, int],
        opened: int,
        what: str,
        requests: int,
        shot: bool = False,
    ) -> str | None:
        """Wait for what the action started: a page load, a popup. Returns what a guarded
        press would have reached instead of its target (None: nothing was held back).
        ``requests``: the tab's navigation requests before the action; ``shot``: a screenshot
        follows (the check readies the page for it when it can)."""
        seen = tab.seen() if shot and len(tab.page.frames) == 1 else None
        found, navigated = await self._check(tab, what, "check", requests, seen)
        missed = found.get("missed") if found else None
        popup = submitted = False
        if found:
            navigated, popup, submitted = tab.note(found)
            tab.title_hint = found["title"]
            if found.get("shot") is not None and not (navigated or popup or submitted):
                tab.keep_prepared(tab.commits, int(found["shot"]))
        if submitted and not navigated:  # its navigation starts a task later
            found, navigated = await self._check(tab, what, "check_later", requests)
            if found:
                navigated = tab.note(found)[0]
                tab.title_hint = found["title"]
        if navigated:
            tab.title_hint = None
            await self.wait_for_load(tab, mark, f"loading the page opened by {what}")
        if popup and self._tabs.opened <= opened:
            await self._tabs.wait_for_page(opened, self._opts.popup_wait_s)
        await self.adopt_popup()
        return missed

    async def _check(
        self,
        tab: TabState,
        what: str,
        op: str,
        requests: int,
        seen: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any] | None, bool]:
        """Read hooks.js's record of what the action started: (record, navigated).

        While a cross-document navigation waits for its response, Chromium answers no
        evaluate (nor screenshot) for the page until it commits. So this read runs under the
        navigation deadline; past it, the navigation is cancelled, and a second read tells a
        hung navigation (NavigationTimeout) from a page that is busy (ActionTimeout)."""
        seconds = self._opts.navigation_timeout_s
        try:
            async with self._guard(f"{what} (loading)", seconds, NavigationTimeout):
                return await self._read_unless_busy(tab, op, requests, what, seen)
        except NavigationTimeout as exc:
            await tab.stop_loading()
            try:
                async with self._guard(f"{what} (checking the page)", 1.0):
                    found, raced = await self._read_check(tab, "check")
            except ActionTimeout:
                raise ActionTimeout(f"the page does not respond after {what}") from exc
            # An evaluate that waits out the whole deadline and answers once the load is
            # stopped is a navigation's mark; without the hooks' record that is all we know.
            if raced or not (found and found.get("doc")) or tab.note(found)[0]:
                raise
            message = f"{what} did not finish within {seconds:g} s"
            raise ActionTimeout(message, seconds=seconds) from exc

    async def _read_unless_busy(
        self, tab: TabState, op: str, requests: int, what: str, seen: dict[str, Any] | None
    ) -> tuple[dict[str, Any] | None, bool]:
        """The check, waited for up to the navigation deadline only while a navigation may
        hold it: without a navigation request since the action, a page that does not answer
        within the action deadline is busy (ActionTimeout, and hung.py cuts it off)."""
        read = asyncio.ensure_future(self._read_check(tab, op, seen))
        try:
            await asyncio.wait({read}, timeout=self._opts.action_timeout_s)
            if not read.done() and tab.requests == requests:
                raise ActionTimeout(f"the page does not respond after {what}")
            return await read
        finally:
            read.cancel()

    async def _read_check(
        self, tab: TabState, op: str, seen: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any] | None, bool]:
        """act.js ``op``; with ``seen``, the check that also readies the page for a screenshot
        (CHECK_AND_PREPARE). Returns (record, raced)."""
        fn, args = ("act", {"op": op}) if seen is None else ("check", {"op": op, "seen": seen})
        try:
            return await tab.read(fn, args), False
        except PlaywrightError as exc:
            if is_navigation_race(exc):
                return None, True  # the document went away under the evaluate
            if "closed" in str(exc):
                await asyncio.sleep(0.05)  # the close event may trail the error
                if tab.page.is_closed():
                    return None, False  # the page closed itself (window.close): not a fault
            raise

    async def adopt_popup(self) -> None:
        """Switch to a popup the page opened, once it has loaded."""
        tab = self._tabs.adopt_new()
        if tab is None:
            return
        seconds = self._opts.navigation_timeout_s
        try:
            async with self._guard("loading the new tab", seconds, NavigationTimeout, tab.page):
                await tab.page.wait_for_load_state("load", timeout=seconds * 1000)
        except NavigationTimeout:
            await tab.stop_loading()
            raise
