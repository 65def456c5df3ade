"""The two contenders of the env benchmark, and the Pillow set-of-marks alternative.

``RawRunner`` is minimal hand-written Playwright: what a careful user would write without
webdojo (``mouse.click`` + ``screenshot``, ``expect_navigation`` around a navigating click).
``WebdojoRunner`` does the same through ``BrowserSession.step``.
"""

from __future__ import annotations

import io
import time

from playwright.async_api import Browser, Page

from webdojo.actions import Click
from webdojo.bench.pages import COUNTER_XY, LINK_XY
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions
from webdojo.observation import Element, ObservationOptions

JPEG_QUALITY = 80
SHOT = ObservationOptions(jpeg_quality=JPEG_QUALITY)


class RawRunner:
    """Minimal hand-written Playwright: what a careful user would write without webdojo."""

    def __init__(self, browser: Browser, options: SessionOptions) -> None:
        self._browser = browser
        self._viewport = {"width": options.viewport_width, "height": options.viewport_height}
        self.page: Page | None = None

    async def reset(self, url: str) -> None:
        await self.close()
        context = await self._browser.new_context(viewport=self._viewport)  # type: ignore[arg-type]
        self.page = await context.new_page()
        await self.page.goto(url)
        await self._shot()

    async def in_page(self) -> None:
        assert self.page is not None
        await self.page.mouse.click(*COUNTER_XY)
        await self._shot()

    async def navigation(self) -> None:
        assert self.page is not None
        async with self.page.expect_navigation():
            await self.page.mouse.click(*LINK_XY)
        await self._shot()

    async def _shot(self) -> bytes:
        assert self.page is not None
        return await self.page.screenshot(type="jpeg", quality=JPEG_QUALITY)

    async def close(self) -> None:
        if self.page is not None:
            await self.page.context.close()
            self.page = None


class WebdojoRunner:
    def __init__(self, host: BrowserHost, options: SessionOptions) -> None:
        self._host = host
        self._options = options
        self.session: BrowserSession | None = None
        self.counter_id: int | None = None  # element id of #inc in the last element list

    async def reset(self, url: str, observe: ObservationOptions = SHOT) -> None:
        await self.close()
        self.session = await self._host.new_session(self._options)
        await self.session.goto(url)
        obs = await self.session.observe(observe)
        self._remember(obs.elements)

    async def in_page(self, observe: ObservationOptions = SHOT) -> None:
        assert self.session is not None
        if self.counter_id is None:  # screenshot agents click by coordinates
            action = Click(x=COUNTER_XY[0], y=COUNTER_XY[1])
        else:  # axtree / set-of-marks agents click by element id
            action = Click(element=self.counter_id)
        obs = await self.session.step(action, observe)
        if obs.last_error is not None:
            raise RuntimeError(f"benchmark step failed: {obs.last_error.message}")
        self._remember(obs.elements)

    async def navigation(self) -> None:
        assert self.session is not None
        obs = await self.session.step(Click(x=LINK_XY[0], y=LINK_XY[1]), SHOT)
        if obs.last_error is not None:
            raise RuntimeError(f"benchmark step failed: {obs.last_error.message}")

    def _remember(self, elements: list[Element] | None) -> None:
        found = [e.id for e in elements or [] if e.html_id == "inc"]
        self.counter_id = found[0] if found else None

    async def close(self) -> None:
        if self.session is not None:
            await self.session.aclose()
            self.session = None


def pillow_marks_ms(screenshot: bytes, elements: list[Element]) -> float:
    """The alternative to drawing marks in the page: decode, draw, re-encode in Python."""
    from PIL import Image, ImageDraw

    start = time.perf_counter()
    image = Image.open(io.BytesIO(screenshot)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for e in elements:
        if e.in_viewport:
            box = (e.box.x, e.box.y, e.box.x + e.box.width, e.box.y + e.box.height)
            draw.rectangle(box, outline=(230, 25, 75), width=2)
            draw.text((e.box.x + 2, max(e.box.y - 12, 0)), str(e.id), fill=(230, 25, 75))
    image.save(io.BytesIO(), format="JPEG", quality=JPEG_QUALITY)
    return (time.perf_counter() - start) * 1000
