"""Does killing one renderer take the whole Chromium down? Raw Playwright, no webdojo sessions.

Two contexts click and take screenshots in a loop on a local page; each round one renderer
gets SIGKILL at a random moment, and the round records whether the browser process survived.
On Debian's Chromium 156 the browser itself ended with SIGSEGV in about one round in three
(chromium-headless-shell; 0 of 40 with the screenshots replaced by evaluates). This is why
``webdojo serve --spare-browser`` exists (README, "Hardening").

    .venv/bin/python scripts/renderer_kill_repro.py [--rounds 40] [--no-screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import tempfile
from pathlib import Path

import psutil
from playwright.async_api import Browser, Page, async_playwright
from playwright.async_api import Error as PlaywrightError

from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.static import StaticServer
from webdojo.browser.chromium import BrowserConfig, find_chromium


async def _work(page: Page, screenshots: bool) -> None:
    for _ in range(20):
        try:
            await page.mouse.click(*COUNTER_XY)
            if screenshots:
                await page.screenshot(type="jpeg", quality=80, timeout=5000)
            else:
                await page.evaluate("document.title")
        except PlaywrightError:
            return  # its renderer (or the browser) is gone


def _renderers() -> list[psutil.Process]:
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if "--type=renderer" in proc.cmdline():
                found.append(proc)
        except psutil.Error:
            continue
    return found


async def _round(browser: Browser, url: str, rng: random.Random, screenshots: bool) -> None:
    pages = []
    for _ in range(2):
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(url)
        pages.append(page)
    work = [asyncio.ensure_future(_work(page, screenshots)) for page in pages]
    await asyncio.sleep(rng.uniform(0.02, 0.3))
    victims = _renderers()
    if victims:
        os.kill(rng.choice(victims).pid, signal.SIGKILL)
    await asyncio.gather(*work)
    for page in pages:
        with contextlib.suppress(PlaywrightError):
            await page.context.close()


async def main(rounds: int, screenshots: bool) -> None:
    rng = random.Random(1)
    args = BrowserConfig().launch_args()
    with tempfile.TemporaryDirectory() as tmp:
        write_pages(Path(tmp))
        with StaticServer(tmp) as pages:
            async with async_playwright() as playwright:
                launch = playwright.chromium.launch
                browser = await launch(executable_path=find_chromium(), args=args)
                deaths = 0
                for _ in range(rounds):
                    await _round(browser, pages.url("a.html"), rng, screenshots)
                    if not browser.is_connected():  # the whole browser went with the renderer
                        deaths += 1
                        browser = await launch(executable_path=find_chromium(), args=args)
                await browser.close()
    what = "click + screenshot" if screenshots else "click + evaluate"
    print(f"{find_chromium()}, {what}: the browser died in {deaths} of {rounds} renderer kills")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--no-screenshots", action="store_true")
    options = parser.parse_args()
    asyncio.run(main(options.rounds, not options.no_screenshots))
