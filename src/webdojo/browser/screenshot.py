"""A viewport screenshot through the tab's own CDP session.

Playwright's ``page.screenshot(animations="disabled")`` readies every frame with three
evaluates (finish animations and hide carets, wait for fonts, undo), asks for the layout
metrics, then captures. On a 2-core machine that was about a quarter of the CPU of a click
and screenshot (renderer, browser and driver together). In a page without child frames this
module does the same with one evaluate (shot.js), ``Page.captureScreenshot``, and a second
evaluate only when infinite animations were paused for the capture. The bytes are the same
as Playwright's (tests/browser/test_screenshot_fast.py compares them), except that jQuery's
timer-driven animations are finished as well: captured mid-way, they made two runs of the
same episode differ. A page with child frames, or one whose scripts broke the evaluate, gets
Playwright's screenshot.

After an input action whose observation takes a screenshot, the evaluate that readies the
page rides on the post-action check (settle.py, ``page_scripts.CHECK_AND_PREPARE``) when it finds
the same document with nothing started: a step then makes three driver round trips (input,
check, capture) instead of four. The tab keeps what that evaluate paused
(``TabState.prepared``) for the capture that follows, and only for it.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from playwright.async_api import TimeoutError as PlaywrightTimeout

from webdojo.browser import page_scripts
from webdojo.browser.tabs import TabState
from webdojo.observation import ImageFormat, ObservationOptions


async def viewport_screenshot(tab: TabState, options: ObservationOptions, seconds: float) -> bytes:
    """The viewport as JPEG or PNG with animations finished and the caret hidden; raises
    Playwright's ``TimeoutError`` past ``seconds`` and its ``Error`` when capture fails. A CDP
    call to a crashed renderer never answers: call this under the session's guard, whose
    deadline the crash expires (``TabState.on_crash``)."""
    if len(tab.page.frames) > 1:
        if tab.take_prepared():  # paused by the check for a capture that does not come now
            await page_scripts.shot(await tab.cdp(), "resume")
        return await tab.page.screenshot(**playwright_kwargs(options, seconds))
    try:
        async with asyncio.timeout(seconds):
            shot = await _capture(tab, options)
    except TimeoutError as exc:
        raise PlaywrightTimeout(f"the screenshot took over {seconds:g} s") from exc
    if shot is None:  # the page's scripts broke the evaluate
        return await tab.page.screenshot(**playwright_kwargs(options, seconds))
    return shot


async def _capture(tab: TabState, options: ObservationOptions) -> bytes | None:
    cdp = await tab.cdp()
    paused = tab.take_prepared()
    if paused is None:
        prepared = await page_scripts.shot(cdp, "prepare")
        if "exceptionDetails" in prepared:
            return None
        paused = prepared.get("result", {}).get("value")
    params: dict[str, Any] = {"format": options.image_format.value}
    if options.image_format is ImageFormat.JPEG:
        params["quality"] = options.jpeg_quality
    try:
        shot = await cdp.send("Page.captureScreenshot", params)
    finally:
        if paused:  # infinite animations paused: play them
            await page_scripts.shot(cdp, "resume")
    return base64.b64decode(shot["data"])


def playwright_kwargs(options: ObservationOptions, seconds: float) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"type": options.image_format.value, "animations": "disabled"}
    if options.image_format is ImageFormat.JPEG:
        kwargs["quality"] = options.jpeg_quality
    kwargs["timeout"] = seconds * 1000
    return kwargs
