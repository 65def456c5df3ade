"""One ``Action`` -> Playwright calls on the active tab.

Fast path. Element actions resolve their target with one small evaluate (act.js ``locate``:
registry lookup, scroll into view, hit test) and then use raw mouse input, instead of
Playwright's locator actions, whose actionability checks wait for animation frames. After an
input action, ``settle.py`` reads with one more evaluate (act.js ``check``) what hooks.js
recorded: a cross-document navigation, a form submission or a popup. Only then is a load waited
for, counted by the tab's load events from before the action, which is what makes the next
screenshot safe (``wait_for_load_state`` alone can return for the old document). The check
also returns the title, which the observation reuses, so an in-page click costs one short
evaluate more than a raw ``mouse.click`` (two when it targets an element id).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from webdojo.actions import (
    Action,
    ActionContext,
    Click,
    CloseTab,
    DoubleClick,
    GoBack,
    GoForward,
    Goto,
    Hover,
    NewTab,
    Press,
    Scroll,
    Select,
    Stop,
    TabFocus,
    Type,
    Wait,
)
from webdojo.browser import page_scripts
from webdojo.browser.guard import Guard
from webdojo.browser.hung import unbusy
from webdojo.browser.netguard import NetGuard
from webdojo.browser.options import SessionOptions
from webdojo.browser.settle import Settler
from webdojo.browser.tabs import TabSet
from webdojo.browser.targets import Targets, stale
from webdojo.errors import (
    ActionFailed,
    BadTab,
    NavigationTimeout,
    StaleElement,
    UnknownElement,
)

T = TypeVar("T")


class Executor:
    def __init__(
        self, tabs: TabSet, guard: Guard, options: SessionOptions, net: NetGuard | None = None
    ) -> None:
        self._tabs = tabs
        self._guard = guard
        self._opts = options
        self._targets = Targets(tabs, guard, options)
        self._settler = Settler(tabs, guard, options)
        self._net = net  # the network policy's proxy: its blocks explain failed loads
        self._shot = False  # during run: a screenshot follows the action

    async def run(self, action: Action, ctx: ActionContext, *, shot: bool = False) -> None:
        """Perform ``action``. ``shot``: the observation that follows takes a screenshot, so
        the post-action check may ready the page for it (settle.py)."""
        handler: Callable[[Any, ActionContext], Awaitable[None]] = getattr(self, f"_{action.type}")
        self._shot = shot
        try:
            await handler(action, ctx)
        finally:
            self._shot = False

    # --- page loads -----------------------------------------------------------------------

    async def navigate(self, what: str, start: Callable[[int], Awaitable[T]]) -> T:
        """Run a Playwright navigation (``start(timeout_ms)``) under the navigation deadline;
        on a timeout, cancel it so that the tab stays usable. Returns what ``start`` returned
        (``page.goto``'s response: the start page's HTTP status is checked on it)."""
        tab = self._tabs.current
        seconds = self._opts.navigation_timeout_s
        await unbusy(tab)
        mark = self._net.mark() if self._net else 0
        try:
            # Playwright's own timeout comes first; the error names the configured seconds
            async with self._guard(what, seconds, NavigationTimeout, grace=1):
                result = await start(int(seconds * 1000))
        except NavigationTimeout:
            await tab.stop_loading()
            raise
        except ActionFailed as exc:
            blocked = self._net.error_since(mark, what) if self._net else None
            if blocked is not None and self._net is not None and self._net.refused(str(exc)):
                raise blocked from exc
            raise
        tab.doc = None
        return result

    async def _interact(
        self,
        what: str,
        act: Callable[[], Awaitable[None]],
        element: int | None = None,
        press: bool = False,
    ) -> None:
        """Perform input, then wait for whatever it started (a page load, a popup). With an
        ``element``, the input was guarded (act.js ``arm``): one held back raises. A ``press``
        may close its own tab (``window.close()`` in a mouse handler)."""
        tab = self._tabs.current
        mark, opened, requests = tab.mark(), self._tabs.opened, tab.requests
        net_mark = self._net.mark() if self._net else 0
        tab.title_hint = None
        try:
            async with self._guard(what, self._opts.action_timeout_s):
                await act()
        except ActionFailed:
            # Playwright fails a press whose own handler closed the page before the press
            # returned; the press took effect. Crashes and a dead browser raise other errors.
            if not (press and tab.page.is_closed()):
                raise
        missed = await self._settler.settle(tab, mark, opened, what, requests, self._shot)
        if self._net is not None and self._tabs.has_current():
            blocked = await self._net.failed_load(self._tabs.current.page, net_mark, what)
            if blocked is not None:
                raise blocked
        if missed and element is not None:
            raise stale(element, missed)

    async def adopt_popup(self) -> None:
        await self._settler.adopt_popup()

    # --- pointer actions ------------------------------------------------------------------

    async def _click(self, action: Click, ctx: ActionContext) -> None:
        await self._pointer_press(action, ctx, self._mouse().click)

    async def _double_click(self, action: DoubleClick, ctx: ActionContext) -> None:
        await self._pointer_press(action, ctx, self._mouse().dblclick)

    async def _pointer_press(
        self, action: Click | DoubleClick, ctx: ActionContext, press: Callable[..., Awaitable[None]]
    ) -> None:
        """A guarded press at the target; by element id, a press held back because the
        element moved is tried once more after aiming (targets.py)."""
        for aim in (False, True):
            x, y, _ = await self._targets.point(action, ctx, arm=True, aim=aim)
            try:
                await self._interact(
                    action.describe(), partial(press, x, y), action.element, press=True
                )
                return
            except StaleElement:
                if aim or action.element is None:
                    raise

    async def _hover(self, action: Hover, ctx: ActionContext) -> None:
        x, y, _ = await self._targets.point(action, ctx)
        async with self._guard(action.describe(), self._opts.action_timeout_s):
            await self._mouse().move(x, y)

    async def _type(self, action: Type, ctx: ActionContext) -> None:
        for aim in (False, True):  # by element id: once more after aiming (as a click)
            try:
                await self._type_once(action, ctx, aim)
                return
            except StaleElement:
                if aim or action.element is None:
                    raise

    async def _type_once(self, action: Type, ctx: ActionContext, aim: bool) -> None:
        target = action.element is not None or action.has_point()
        if target:
            x, y, editable = await self._targets.point(action, ctx, arm=True, aim=aim)
            if not editable:
                await self._targets.disarm()
                raise ActionFailed(f"element [{action.element}] is not a text field")
        keyboard = self._tabs.current.page.keyboard

        async def act() -> None:
            if target:
                await self._mouse().click(x, y)
                if action.element is not None:
                    missed = await self._targets.disarm()
                    if missed:  # the click was held back: type nowhere
                        raise stale(action.element, missed)
                await keyboard.press("ControlOrMeta+a")
                await keyboard.press("Delete")
            await keyboard.type(action.text)
            if action.enter:
                await keyboard.press("Enter")

        await self._interact(action.describe(), act)

    async def _scroll(self, action: Scroll, ctx: ActionContext) -> None:
        vertical = action.direction in ("up", "down")
        span = ctx.viewport_height if vertical else ctx.viewport_width
        amount = action.amount or max(1, span * 5 // 6)  # most of a screen (600 px of 720)
        sign = -1 if action.direction in ("up", "left") else 1
        dx, dy = (0, sign * amount) if vertical else (sign * amount, 0)
        page = self._tabs.current.page
        point = None
        if action.element is not None or action.has_point():
            x, y, _ = await self._targets.point(action, ctx)
            point = (x, y)
        async with self._guard(action.describe(), self._opts.action_timeout_s):
            if point is None:
                moved = await page_scripts.call(page, "act", {"op": "scroll", "dx": dx, "dy": dy})
                if not moved["room"]:  # the page scrolls an inner element: wheel at the centre
                    point = (ctx.viewport_width / 2, ctx.viewport_height / 2)
            if point is not None:
                await page.mouse.move(*point)
                await page.mouse.wheel(dx, dy)
                # A wheel scroll reaches the DOM at the next frame: wait for it so that the
                # observation (element boxes, axtree) sees the new scroll position.
                await page_scripts.call(page, "act", {"op": "frame"})

    def _mouse(self) -> Any:
        return self._tabs.current.page.mouse

    # --- keyboard and forms -----------------------------------------------------------------

    async def _press(self, action: Press, ctx: ActionContext) -> None:
        keyboard = self._tabs.current.page.keyboard
        await self._interact(action.describe(), lambda: keyboard.press(action.keys))

    async def _select(self, action: Select, ctx: ActionContext) -> None:
        page = self._tabs.current.page
        result: dict[str, Any] = {}

        async def act() -> None:
            args = {"op": "select", "id": action.element, "option": action.option}
            result.update(await page_scripts.call(page, "act", args))

        await self._interact(action.describe(), act)
        error = result.get("error")
        if error == "unknown":
            raise UnknownElement(f"there is no element [{action.element}] on the current page")
        if error == "detached":
            raise StaleElement(f"element [{action.element}] is no longer on the page")
        if error == "not_select":
            raise ActionFailed(f"element [{action.element}] is a <{result['tag']}>, not a <select>")
        if error == "no_option":
            options = ", ".join(repr(o) for o in result["options"][:50])
            raise ActionFailed(
                f"element [{action.element}] has no option {action.option!r}; options: {options}"
            )
        if error == "disabled":
            raise ActionFailed(
                f"option {action.option!r} of element [{action.element}] is disabled"
            )

    # --- navigation -----------------------------------------------------------------------

    async def _goto(self, action: Goto, ctx: ActionContext) -> None:
        if self._net is not None:
            self._net.precheck(action.url)  # NetworkBlocked before anything is sent
        page = self._tabs.current.page
        await self.navigate(
            f"opening {action.url}", lambda ms: page.goto(action.url, wait_until="load", timeout=ms)
        )

    async def _history(self, forward: bool) -> None:
        page = self._tabs.current.page
        async with self._guard("reading the tab history", self._opts.action_timeout_s):
            can = await page_scripts.call(page, "act", {"op": "history"})
        if can is not None and not can["forward" if forward else "back"]:
            where = "next" if forward else "previous"
            raise ActionFailed(f"there is no {where} page in this tab's history")
        go = page.go_forward if forward else page.go_back
        what = "going forward" if forward else "going back"
        await self.navigate(what, lambda ms: go(wait_until="load", timeout=ms))

    async def _go_back(self, action: GoBack, ctx: ActionContext) -> None:
        await self._history(forward=False)

    async def _go_forward(self, action: GoForward, ctx: ActionContext) -> None:
        await self._history(forward=True)

    # --- tabs -----------------------------------------------------------------------------

    async def _new_tab(self, action: NewTab, ctx: ActionContext) -> None:
        if self._net is not None and action.url is not None:
            self._net.precheck(action.url)  # refused before the tab opens
        async with self._guard("opening a new tab", self._opts.action_timeout_s):
            await self._tabs.new_tab()
        if action.url is not None:
            await self._goto(Goto(url=action.url), ctx)

    async def _tab_focus(self, action: TabFocus, ctx: ActionContext) -> None:
        if action.index >= len(self._tabs.tabs):
            raise BadTab(
                f"tab {action.index} does not exist; there are {len(self._tabs.tabs)} tabs"
            )
        tab = self._tabs.tabs[action.index]
        self._tabs.activate(tab)
        async with self._guard("switching tabs", self._opts.action_timeout_s, page=tab.page):
            await tab.page.bring_to_front()

    async def _close_tab(self, action: CloseTab, ctx: ActionContext) -> None:
        async with self._guard("closing the tab", self._opts.action_timeout_s):
            await self._tabs.close_current()
            await self._tabs.current.page.bring_to_front()

    # --- the rest -------------------------------------------------------------------------

    async def _wait(self, action: Wait, ctx: ActionContext) -> None:
        await asyncio.sleep(action.seconds)  # already capped by the action model

    async def _stop(self, action: Stop, ctx: ActionContext) -> None:
        """The env layer ends the episode; nothing happens in the page."""
