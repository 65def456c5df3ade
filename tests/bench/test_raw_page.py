"""The raw page and the floor step the benches measure against (``webdojo.bench.raw_page``):
real Chromium on the bench's own pages."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import Error as PlaywrightError

from webdojo.bench.pages import write_pages
from webdojo.bench.raw_page import CAPTURE_TRIES, RawPage, bare_capture
from webdojo.bench.static import StaticServer
from webdojo.browser import BrowserHost

pytestmark = pytest.mark.browser


async def test_the_floor_steps_click_and_navigate_and_capture_the_viewport(tmp_path: Path) -> None:
    write_pages(tmp_path)
    with StaticServer(tmp_path) as pages:
        async with await BrowserHost.launch() as host:
            page = await RawPage.open(host.browser, pages.url("a.html"))
            try:
                count = "document.getElementById('count').textContent"
                await page.click_floor()
                assert await page.page.evaluate(count) == "1"  # the counter button was hit
                await page.goto_floor(pages.url("b.html"))
                assert page.page.url.endswith("b.html")
                image = Image.open(io.BytesIO(await bare_capture(page.cdp)))
                assert image.format == "JPEG" and image.size == (1280, 720)
                await page.click_screenshot()
            finally:
                await page.close()
            assert page.context not in host.browser.contexts


class _Refusing:
    """A CDP session that refuses its first ``refusals`` captures, as Chromium does now and
    then just after a load."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.calls = 0

    async def send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls <= self.refusals:
            raise PlaywrightError("Unable to capture screenshot")
        return {"data": "AAEC"}


async def test_a_refused_capture_is_tried_again_and_the_last_refusal_is_raised() -> None:
    cdp = _Refusing(CAPTURE_TRIES - 1)
    assert await bare_capture(cdp) == b"\x00\x01\x02"  # type: ignore[arg-type]
    assert cdp.calls == CAPTURE_TRIES
    with pytest.raises(PlaywrightError, match="Unable to capture"):
        await bare_capture(_Refusing(CAPTURE_TRIES))  # type: ignore[arg-type]
