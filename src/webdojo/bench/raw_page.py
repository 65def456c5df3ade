"""A page driven by hand-written Playwright, and the floor the benches measure steps against.

The floor step is Playwright's ``mouse.click`` (or ``goto``) and a bare CDP
``Page.captureScreenshot``, which readies nothing (no caret hidden, no animation finished): no
framework can step faster with this browser. ``bench rollout`` ("raw CDP"), ``bench
step-cpu`` (its floor) and ``bench env`` (its floor reset) all take it from here, so that
their figures are read against the same step.
"""

from __future__ import annotations

import asyncio
import base64

from playwright.async_api import Browser, BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from webdojo.bench.pages import COUNTER_XY
from webdojo.browser.options import SessionOptions

JPEG_QUALITY = 80  # every bench's screenshots
CAPTURE_TRIES = 10


async def bare_capture(cdp: CDPSession, tries: int = CAPTURE_TRIES) -> bytes:
    """A bare JPEG capture, decoded. Just after a load, Chromium now and then answers "Unable
    to capture screenshot" (the new document has no frame yet), twice in a row at times: the
    capture is tried again, up to ``tries`` times."""
    shot = {"format": "jpeg", "quality": JPEG_QUALITY}
    for _ in range(tries - 1):
        try:
            return base64.b64decode((await cdp.send("Page.captureScreenshot", shot))["data"])
        except PlaywrightError:
            await asyncio.sleep(0.005)
    return base64.b64decode((await cdp.send("Page.captureScreenshot", shot))["data"])


def viewport() -> dict[str, int]:
    """The viewport webdojo's sessions have by default, for a raw context to match."""
    options = SessionOptions()
    return {"width": options.viewport_width, "height": options.viewport_height}


class RawPage:
    """A page in a context of its own, loaded, with a CDP session of it (``open``). Its CDP
    session stays valid across same-site navigations; another site's page may swap the
    renderer under it (``bench env``'s floor makes a new one after each load)."""

    def __init__(self, context: BrowserContext, page: Page, cdp: CDPSession) -> None:
        self.context = context
        self.page = page
        self.cdp = cdp

    @classmethod
    async def open(cls, browser: Browser, url: str) -> RawPage:
        context = await browser.new_context(viewport=viewport())  # type: ignore[arg-type]
        try:
            page = await context.new_page()
            await page.goto(url)
            return cls(context, page, await context.new_cdp_session(page))
        except BaseException:
            await context.close()
            raise

    async def click_floor(self) -> None:
        """The floor's in-page step: a click on the counter and a bare capture."""
        await self.page.mouse.click(*COUNTER_XY)
        await bare_capture(self.cdp)

    async def goto_floor(self, url: str) -> None:
        """The floor's navigation step: ``goto`` and a bare capture."""
        await self.page.goto(url)
        await bare_capture(self.cdp)

    async def click_screenshot(self) -> None:
        """What a careful user writes without webdojo: a click and Playwright's screenshot."""
        await self.page.mouse.click(*COUNTER_XY)
        await self.page.screenshot(type="jpeg", quality=JPEG_QUALITY)

    async def close(self) -> None:
        await self.context.close()
