"""The two contenders of the env benchmark, and the Pillow set-of-marks alternative.

``RawRunner`` is minimal hand-written Playwright: what a careful user would write without
webdojo (``mouse.click`` + ``screenshot``, ``expect_navigation`` around a navigating click).
``WebdojoRunner`` does the same through ``BrowserSession.step``. ``PoolRunner`` resets as
``webdojo serve`` does: ``Worker.create`` with a warm pool (a context and page made ahead, and
with ``preload`` the start page loaded ahead too), timed once a warm context is ready.
``FloorRunner`` is the least a reset that pays the page load can cost in this browser: a page
made ahead, then ``goto`` and a bare capture (``raw_page.bare_capture``: no readying of the page).
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Awaitable, Callable

from playwright.async_api import Browser, Page

from webdojo.actions import Click
from webdojo.bench.pages import COUNTER_XY, LINK_XY
from webdojo.bench.raw_page import JPEG_QUALITY, bare_capture
from webdojo.browser import BrowserConfig, BrowserHost, BrowserSession, SessionOptions
from webdojo.observation import Element, ObservationOptions
from webdojo.server.worker.config import WorkerConfig
from webdojo.server.worker.core import Worker

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


class FloorRunner(RawRunner):
    """A raw page made (and painted once) ahead; a reset is ``goto`` plus a bare CDP capture."""

    async def ready(self) -> None:
        await self.close()
        context = await self._browser.new_context(viewport=self._viewport)  # type: ignore[arg-type]
        self.page = await context.new_page()
        await self._shot()

    async def reset(self, url: str) -> None:
        assert self.page is not None
        await self.page.goto(url)
        # made after the load: a navigation to another site swaps the renderer under it
        await bare_capture(await self.page.context.new_cdp_session(self.page))


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


class PoolRunner:
    """Resets through a worker's warm pool of one (its own browser). ``ready`` waits until the
    pool holds a warm context again: the figure is a reset where one is available."""

    def __init__(
        self, options: SessionOptions, preload: bool, browser: BrowserConfig | None = None
    ) -> None:
        self._options = options
        config = WorkerConfig(
            warm_contexts=1,
            warm_options=options,
            warm_preload=preload,
            browser=browser or BrowserConfig(),
        )
        self.worker = Worker(config)
        self.session_id: str | None = None

    async def start(self) -> None:
        await self.worker.start()

    async def ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.worker.stats()["warm_ready"] < 1:
            if time.monotonic() > deadline:
                raise RuntimeError("the warm pool did not refill in time")
            await asyncio.sleep(0.005)

    async def reset(self, url: str) -> None:
        self.session_id, _ = await self.worker.create(url, self._options, SHOT)

    async def close(self) -> None:
        if self.session_id is not None:
            await self.worker.close(self.session_id)
            self.session_id = None

    async def aclose(self) -> None:
        await self.close()
        await self.worker.aclose()


async def pool_resets(
    host: BrowserHost,
    config: BrowserConfig | None,
    start_url: str,
    options: SessionOptions,
    iterations: int,
    kinds: dict[str, bool],
    warmup: int = 2,
) -> dict[str, list[float]]:
    """Milliseconds per reset through a warm pool, for each of ``kinds`` (name: preload), of
    a raw Playwright reset ("raw") and of the floor (``FloorRunner``, "floor"), taking turns.
    A pool reset is timed once its worker has a warm context ready, and its refill ends
    before the next runner is timed (a refill is not timed, nor is closing the last episode,
    as for the cold reset)."""
    runners = {name: PoolRunner(options, preload, config) for name, preload in kinds.items()}
    samples: dict[str, list[float]] = {name: [] for name in ("raw", "floor", *runners)}
    raw, floor = RawRunner(host.browser, options), FloorRunner(host.browser, options)
    try:
        for runner in runners.values():
            await runner.start()
        for i in range(warmup + iterations):
            await raw.close()
            await floor.ready()
            took = {
                "raw": await _ms(raw.reset, start_url),
                "floor": await _ms(floor.reset, start_url),
            }
            for name, runner in runners.items():
                await runner.close()
                await runner.ready()
                took[name] = await _ms(runner.reset, start_url)
                await runner.ready()  # its refill runs now, not under the next runner's reset
            if i >= warmup:
                for name, ms in took.items():
                    samples[name].append(ms)
    finally:
        await raw.close()
        await floor.close()
        for runner in runners.values():
            await runner.aclose()
    return samples


async def _ms(fn: Callable[[str], Awaitable[None]], url: str) -> float:
    start = time.perf_counter()
    await fn(url)
    return (time.perf_counter() - start) * 1000


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
