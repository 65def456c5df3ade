"""Deadlines of whole session operations, and cutting off a page that stopped answering.

Each public operation of a session (goto, execute, observe, final_state; a step is an execute
then an observe) runs under one hard deadline, on top of the per-call deadlines of ``Guard``:

* a navigation (goto, back, forward): ``navigation_timeout_s``;
* input that may start a load or open a window (click, double click, type, press, select,
  new tab with a URL): ``action_timeout_s + navigation_timeout_s + popup_wait_s``;
* any other action (hover, scroll, tab switch, close tab, stop): ``action_timeout_s``;
* wait: its seconds plus ``action_timeout_s``;
* an observation: ``action_timeout_s``, plus ``navigation_timeout_s`` when a window the page
  opened has to load first; the final state: ``action_timeout_s``.

A page busy in JavaScript (``while (true) {}``, a timer that blocks the main thread for
seconds) answers no evaluate, input event or screenshot, so every later operation would wait
out its whole deadline. When an operation times out, the session asks the page for ``1``
through its CDP session; a page that does not answer gets ``Runtime.terminateExecution``
(V8 stops the running script from another thread), and if it still does not answer, or hangs
again after its script was stopped once, its tab is closed (in the background: Chromium
takes about 0.5 s to close a hung page; the session opens a blank tab at the next
operation). All of this takes at most ``CUT_OFF_S``, so an operation answers by its deadline
plus one second; the timeout error says what was done to the page.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from webdojo.actions import (
    Action,
    Click,
    DoubleClick,
    GoBack,
    GoForward,
    Goto,
    NewTab,
    Press,
    Select,
    Type,
    Wait,
)
from webdojo.browser.options import SessionOptions
from webdojo.browser.tabs import TabSet, TabState
from webdojo.errors import ActionTimeout, BrowserClosed, EnvError, NavigationTimeout

T = TypeVar("T")

ATTACH_S = 0.15  # the page's CDP session, attached in the background when the tab opened
PROBE_S = 0.15  # how long a page may take to evaluate "1" before it counts as hung
SEND_S = 0.1  # Page.stopLoading and Runtime.terminateExecution: answered off the main thread
CUT_OFF_S = ATTACH_S + 2 * PROBE_S + 2 * SEND_S  # the most a cut-off takes (0.65 s)
SLACK_S = 0.2  # an operation's own bound comes this late, so its inner deadline and clean-up
# (a navigation timeout stops the load) come first
_INPUT = (Click, DoubleClick, Type, Press, Select)


def action_deadline(action: Action, options: SessionOptions) -> float:
    """The deadline of ``execute(action)`` (see the module docstring)."""
    act, nav = options.action_timeout_s, options.navigation_timeout_s
    if isinstance(action, Goto | GoBack | GoForward):
        return nav
    if isinstance(action, _INPUT) or (isinstance(action, NewTab) and action.url is not None):
        return act + nav + options.popup_wait_s
    if isinstance(action, Wait):
        return action.seconds + act
    return act


def observe_deadline(options: SessionOptions, popup_pending: bool = False) -> float:
    """The deadline of an observation (see the module docstring)."""
    return options.action_timeout_s + (options.navigation_timeout_s if popup_pending else 0.0)


def step_deadline(action: Action, options: SessionOptions, popup_pending: bool = False) -> float:
    """The deadline of ``step(action)``: the action's, then the observation's (a hung
    navigation is stopped at its deadline, then the page as it stands is observed)."""
    return action_deadline(action, options) + observe_deadline(options, popup_pending)


async def answers(cdp: CDPSession | None) -> bool:
    """Whether the page's main thread evaluates ``1`` within ``PROBE_S``."""
    if cdp is None:
        return False
    try:
        async with asyncio.timeout(PROBE_S):
            await cdp.send("Runtime.evaluate", {"expression": "1", "returnByValue": True})
    except (PlaywrightError, TimeoutError):
        return False
    return True


async def _attached(tab: TabState) -> CDPSession | None:
    with contextlib.suppress(PlaywrightError, TimeoutError):
        async with asyncio.timeout(ATTACH_S):
            return await tab.cdp()
    return None


async def _send(cdp: CDPSession | None, method: str) -> None:
    if cdp is not None:
        with contextlib.suppress(PlaywrightError, TimeoutError):
            async with asyncio.timeout(SEND_S):
                await cdp.send(method)


async def unbusy(tab: TabState) -> None:
    """Before a navigation: stop a script that keeps the page busy, or the old document
    cannot unload and the navigation waits out its deadline although the new page loads.
    Costs one CDP round trip (nothing on a blank tab)."""
    if tab.page.is_closed() or tab.crashed or tab.page.url == "about:blank":
        return
    cdp = await _attached(tab)
    if not await answers(cdp):
        await _send(cdp, "Runtime.terminateExecution")


async def cut_off(tabs: TabSet, tab: TabState) -> str | None:
    """Bring a page that stopped answering back, or drop it. Returns what was done, for the
    error message (None: the page answers, nothing was done)."""
    if tab.page.is_closed() or tab.crashed:
        return None
    cdp = await _attached(tab)
    await _send(cdp, "Page.stopLoading")  # a pending navigation also stops evaluates
    if await answers(cdp):
        return None
    if tab.page.is_closed() or tab.crashed:
        return None  # it went away while we asked
    await _send(cdp, "Runtime.terminateExecution")
    if not tab.cut and await answers(cdp):
        tab.cut = True  # a second hang of the same document closes it
        return "the page was busy in JavaScript; its script was stopped"
    tabs.drop(tab)  # closed in the background: the session opens a blank tab next
    return "the page does not respond; its tab was closed"


class OperationBound:
    """Runs one whole session operation under its deadline; after a timeout, cuts off the
    page if it stopped answering, and says so in the error. ``deadlines`` is the session's
    set of operations under way (``tabs.expire`` ends them all when the browser dies)."""

    def __init__(
        self, tabs: TabSet, connected: Callable[[], bool], deadlines: set[asyncio.Timeout]
    ) -> None:
        self._tabs = tabs
        self._connected = connected
        self._deadlines = deadlines

    async def __call__(
        self,
        what: str,
        seconds: float,
        work: Awaitable[T],
        timeout_error: type[EnvError] = ActionTimeout,
    ) -> T:
        try:
            async with asyncio.timeout(seconds + SLACK_S) as deadline:
                self._deadlines.add(deadline)
                try:
                    return await work
                finally:
                    self._deadlines.discard(deadline)
        except TimeoutError as exc:
            if not self._connected():  # its death expired the deadline
                raise BrowserClosed(f"the browser is gone ({what})") from exc
            message = f"{what} did not finish within {seconds:g} s"
            error: EnvError = timeout_error(message, seconds=seconds)
            cause: BaseException = exc
        except (ActionTimeout, NavigationTimeout) as exc:
            error, cause = exc, exc
        tabs = self._tabs
        done = await cut_off(tabs, tabs.current) if tabs.has_current() else None
        if done is not None:
            error = type(error)(f"{error.message}; {done}", **error.details)
        raise error from cause
