"""Deadlines and the translation of Playwright errors into webdojo's error tree.

Every Playwright call of a session runs inside ``Guard.__call__``: it gets a deadline (an
asyncio timeout on top of Playwright's own, since ``evaluate`` and mouse input have none), and
whatever Playwright raises leaves as a ``WebdojoError`` (``raise ... from exc``):

* a timeout -> ``ActionTimeout`` / ``NavigationTimeout`` (the caller chooses which);
* anything on a crashed page -> ``PageCrashed``, at once: a crash expires the deadlines of
  every operation on that page (``TabState.on_crash``), since a dead renderer may never
  answer a call;
* anything once the browser is gone -> ``BrowserClosed``;
* a tab that closed itself mid-action -> ``ActionFailed``;
* any other Playwright error -> ``ActionFailed`` with Playwright's first message line.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from webdojo.browser.tabs import TabSet
from webdojo.errors import (
    ActionFailed,
    ActionTimeout,
    BrowserClosed,
    EnvError,
    PageCrashed,
    WebdojoError,
)

# Crash and disconnect events can trail the error of the call they broke by a few ms.
_EVENT_GRACE_S = 0.05


def first_line(exc: BaseException) -> str:
    """Playwright's message without its ``Page.click:`` prefix and call log."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    head, sep, rest = text.partition(": ")
    return rest if sep and "." in head and " " not in head else text


def is_navigation_race(exc: BaseException) -> bool:
    """An evaluate that lost its document to a navigation (which is news, not a failure)."""
    text = str(exc)
    return any(race in text for race in _RACES)


# Playwright's evaluate pins its document's context, which a navigation destroys; a bare
# Runtime.evaluate (page_scripts.read) may find no context yet, or its renderer swapped.
_RACES = (
    "context was destroyed",
    "Cannot find context",
    "Cannot find default execution context",
    "Inspected target navigated",
)


class Guard:
    """Runs session operations under a deadline and translates their errors."""

    def __init__(
        self, tabs: TabSet, browser_alive: Callable[[], bool], deadlines: set[asyncio.Timeout]
    ) -> None:
        self._tabs = tabs
        self._browser_alive = browser_alive
        # The session's operations under way, whatever their page: a dead browser ends them
        # all (its pages may have left the tab set by then: Playwright closes them first).
        self._deadlines = deadlines

    def crashed(self) -> bool:
        return self._tabs.has_current() and self._tabs.current.crashed

    @asynccontextmanager
    async def __call__(
        self,
        what: str,
        seconds: float,
        timeout_error: type[EnvError] = ActionTimeout,
        page: Page | None = None,
        *,
        grace: float = 0.0,
    ) -> AsyncIterator[None]:
        """``page`` is the page the operation works on (default: the active one). ``grace``:
        the guard's own deadline comes this much after ``seconds``, so that a bound inside it
        (Playwright's own timeout, a whole operation's) fires first; errors still name
        ``seconds``, the deadline the user configured."""
        if page is None and self._tabs.has_current():
            page = self._tabs.current.page
        tab = None if page is None else self._tabs.find(page)
        try:
            async with asyncio.timeout(seconds + grace) as deadline:
                self._deadlines.add(deadline)
                if tab is not None:
                    tab.deadlines.add(deadline)
                try:
                    yield
                finally:
                    self._deadlines.discard(deadline)
                    if tab is not None:
                        tab.deadlines.discard(deadline)
        except WebdojoError:
            raise
        except (TimeoutError, PlaywrightTimeout) as exc:
            if self.crashed():
                raise PageCrashed(f"the page crashed during {what}") from exc
            if not self._browser_alive():  # its death expired the deadline (TabSet)
                raise BrowserClosed(f"the browser is gone ({what})") from exc
            raise timeout_error(
                f"{what} did not finish within {seconds:g} s", seconds=seconds
            ) from exc
        except PlaywrightError as exc:
            raise await self.translate(exc, what, page) from exc

    async def translate(
        self, exc: PlaywrightError, what: str, page: Page | None = None
    ) -> WebdojoError:
        await asyncio.sleep(_EVENT_GRACE_S)
        message = first_line(exc)
        if self.crashed() or any(m in message for m in ("Target crashed", "Page crashed")):
            return PageCrashed(f"the page crashed during {what}")
        if not self._browser_alive():
            return BrowserClosed(f"the browser is gone ({what}: {message})")
        if self._tabs.context_closed:
            return BrowserClosed(f"the browser context closed during {what}: {message}")
        if page is not None and page.is_closed():
            return ActionFailed(f"the tab closed during {what}")
        return ActionFailed(f"{what} failed: {message}")
