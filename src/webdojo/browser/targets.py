"""Where an action's target is: a point, or an element by id found again at action time.

An element id names the node registered by the last snapshot (dom.js), not a position: act.js
``locate`` finds the node where it stands now (scrolled into view, hit-tested). Moving the
pointer there can itself move it (a hover menu opens or closes and shifts the layout). With
``arm``, the press that follows is guarded in the page (act.js ``arm``): a press, release or
click that would reach another element is stopped before the page sees it, and the action
raises ``StaleElement`` instead of acting on whatever now stands at the old position. The
executor then tries once more with ``aim``: move the pointer, find the element again, and
repeat until it stays put; a second miss raises. An
element no longer in the document is stale too; one covered by another is refused
(``ActionFailed``, naming the cover); the cover is never clicked.
"""

from __future__ import annotations

from typing import Any

from webdojo.actions import ActionContext, PointerAction, to_viewport_pixels
from webdojo.browser import page_scripts
from webdojo.browser.guard import Guard
from webdojo.browser.options import SessionOptions
from webdojo.browser.tabs import TabSet
from webdojo.errors import ActionFailed, StaleElement, UnknownElement

AIM_ROUNDS = 3  # pointer moves to an element whose position keeps changing under it


def stale(element: int, missed: str) -> StaleElement:
    return StaleElement(
        f"element [{element}] moved while the pointer went to it; the press would have "
        f"reached {missed} instead, so it was not made. Observe again and retry"
    )


class Targets:
    def __init__(self, tabs: TabSet, guard: Guard, options: SessionOptions) -> None:
        self._tabs = tabs
        self._guard = guard
        self._opts = options

    async def point(
        self, action: PointerAction, ctx: ActionContext, arm: bool = False, aim: bool = True
    ) -> tuple[float, float, bool]:
        """Viewport pixels of the action's target and whether it is a text field (a point
        target counts as one: we cannot tell). An element is located, and with ``aim``
        aimed at (the pointer moves first: a mouse move costs a frame, ~16 ms, so presses
        aim only on their second try)."""
        if action.element is None:
            assert action.x is not None and action.y is not None
            x, y = to_viewport_pixels(action.x, action.y, action.space, ctx)
            return x, y, True
        if not aim:
            return await self.locate(action.element, arm)
        return await self.aim(action.element, arm)

    async def aim(self, element: int, arm: bool) -> tuple[float, float, bool]:
        """Move the pointer to the element, then find it again where the pointer's arrival
        left it (a hover menu opens or closes, the layout shifts), until it stays put. With
        ``arm``, the press that follows is guarded: if the element still moves under it,
        the page never sees it (act.js ``arm``) and the action raises ``StaleElement``."""
        x, y, editable = await self.locate(element)
        for _ in range(AIM_ROUNDS):
            async with self._guard(f"pointing at element [{element}]", self._opts.action_timeout_s):
                await self._tabs.current.page.mouse.move(x, y)
            nx, ny, editable = await self.locate(element, arm)
            if abs(nx - x) < 1 and abs(ny - y) < 1:
                break
            x, y = nx, ny
        return x, y, editable

    async def locate(self, element: int, arm: bool = False) -> tuple[float, float, bool]:
        args = {"op": "locate", "id": element, "arm": arm}
        async with self._guard(f"finding element [{element}]", self._opts.action_timeout_s):
            found = await page_scripts.call(self._tabs.current.page, "act", args)
        error = found.get("error")
        if error == "unknown":
            raise UnknownElement(
                f"there is no element [{element}] on the current page; use an id from the "
                "latest observation"
            )
        if error == "detached":
            raise StaleElement(
                f"element [{element}] is no longer on the page; observe again and use a fresh id"
            )
        if error == "hidden":
            raise ActionFailed(f"element [{element}] is not visible")
        if error == "covered":
            raise ActionFailed(f"element [{element}] is covered by {found['cover']}")
        return found["x"], found["y"], found["editable"]

    async def disarm(self) -> str | None:
        """Lift the press guard; what a held-back press would have reached (None: nothing)."""
        found: Any = await page_scripts.call(self._tabs.current.page, "act", {"op": "disarm"})
        return found.get("missed") if found else None
