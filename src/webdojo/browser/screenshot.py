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
page rides on the post-action check (``CHECK_AND_PREPARE``, settle.py) when that check finds
the same document with nothing started: a step then makes three driver round trips (input,
check, capture) instead of four. The tab keeps what that evaluate paused
(``TabState.prepared``) for the capture that follows, and only for it.
"""

from __future__ import annotations

import asyncio
import base64
from importlib import resources
from typing import Any

from playwright.async_api import TimeoutError as PlaywrightTimeout

from webdojo.browser.dom import ACT_JS
from webdojo.browser.tabs import TabState
from webdojo.observation import ImageFormat, ObservationOptions

SHOT_JS = resources.files("webdojo.browser").joinpath("shot.js").read_text(encoding="utf-8")
_PREPARE = f"({SHOT_JS})('prepare')"
_RESUME = f"({SHOT_JS})('resume')"
# act.js's check, then shot.js's prepare_now if the check found the document it was told of
# (``args.seen``: token and hooks.js counters) with nothing started since. ``shot`` in the
# result: what prepare_now returned (null: the fonts were still loading, nothing was done; or
# the page's scripts broke it, which the capture's own evaluate then meets and falls back on).
CHECK_AND_PREPARE = f"""(args) => {{
  const found = ({ACT_JS})(args);
  const seen = args.seen;
  if (found.doc && found.doc === seen.doc && found.navs === seen.navs &&
      found.popups === seen.popups && found.submits === seen.submits) {{
    try {{ found.shot = ({SHOT_JS})("prepare_now"); }} catch (e) {{ found.shot = null; }}
  }}
  return found;
}}"""


async def viewport_screenshot(tab: TabState, options: ObservationOptions, seconds: float) -> bytes:
    """The viewport as JPEG or PNG with animations finished and the caret hidden; raises
    Playwright's ``TimeoutError`` past ``seconds`` and its ``Error`` when capture fails. A CDP
    call to a crashed renderer never answers: call this under the session's guard, whose
    deadline the crash expires (``TabState.on_crash``)."""
    if len(tab.page.frames) > 1:
        if tab.take_prepared():  # paused by the check for a capture that does not come now
            await (await tab.cdp()).send("Runtime.evaluate", _evaluate(_RESUME))
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
        prepared = await cdp.send("Runtime.evaluate", _evaluate(_PREPARE))
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
            await cdp.send("Runtime.evaluate", _evaluate(_RESUME))
    return base64.b64decode(shot["data"])


def _evaluate(expression: str) -> dict[str, Any]:
    return {"expression": expression, "awaitPromise": True, "returnByValue": True}


def playwright_kwargs(options: ObservationOptions, seconds: float) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"type": options.image_format.value, "animations": "disabled"}
    if options.image_format is ImageFormat.JPEG:
        kwargs["quality"] = options.jpeg_quality
    kwargs["timeout"] = seconds * 1000
    return kwargs
