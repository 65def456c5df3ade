"""A headless Chromium (the one webdojo launches) that visits the built site and keeps count of
console errors and of requests that would leave loopback.

Such requests are never sent: the browser's proxy is a loopback port on which nothing listens,
and Chromium sends everything but loopback through its proxy. That blocks them without
intercepting every request (Playwright's routing costs a round trip to Python per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urljoin, urlsplit

from playwright.async_api import BrowserContext, Page, Request, async_playwright

from webdojo.browser.chromium import BrowserConfig, find_chromium

LOOPBACK = ("127.0.0.1", "localhost", "::1")
TIMEOUT_MS = 20_000  # a loaded 2-core machine
# the search index is built in a web worker from every page: on 2 cores busy with other tests
# that took over 20 s; this bounds a search that never answers, not a slow one
SEARCH_TIMEOUT_MS = 120_000
# Every page load parses the search index in a worker (about half a second of CPU): a few tabs
# at once keep both cores busy.
TABS = 3


class Visitor:
    def __init__(self, context: BrowserContext, base_url: str) -> None:
        self.context = context
        self.base_url = base_url
        self.errors: list[str] = []  # console errors and uncaught exceptions, with the page
        self.outside: list[str] = []  # URLs of requests that would have left loopback
        self.failed: dict[str, str] = {}  # URL -> why it failed (the dead proxy, for those)
        self.loaded = 0  # pages loaded

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, base_url: str) -> AsyncIterator[Visitor]:
        with _dead_port() as port:
            async with async_playwright() as pw:
                args = [*BrowserConfig().launch_args(), f"--proxy-server=http://127.0.0.1:{port}"]
                browser = await pw.chromium.launch(executable_path=find_chromium(), args=args)
                context = await browser.new_context(viewport={"width": 1440, "height": 900})
                context.set_default_timeout(TIMEOUT_MS)
                visitor = cls(context, base_url)
                context.on("request", visitor._request)
                context.on("requestfailed", visitor._failed)
                try:
                    yield visitor
                finally:
                    await browser.close()

    def _request(self, request: Request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme not in ("data", "blob") and parts.hostname not in LOOPBACK:
            self.outside.append(request.url)

    def _failed(self, request: Request) -> None:
        self.failed[request.url] = request.failure or ""

    async def _tab(self) -> Page:
        page = await self.context.new_page()
        page.on(
            "console",
            lambda m: self.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        return page

    async def _visit(self, page: Page, path: str) -> None:
        response = await page.goto(urljoin(self.base_url, path), wait_until="load")
        assert response is not None and response.ok, f"{path}: {response and response.status}"
        self.loaded += 1

    async def visit_all(self, paths: list[str]) -> None:
        queue = list(paths)

        async def worker() -> None:
            page = await self._tab()
            while queue:
                await self._visit(page, queue.pop())
            await page.close()

        await asyncio.gather(*(worker() for _ in range(TABS)))

    async def try_to_leave(self, urls: list[str]) -> None:
        """From a page of the site, fetch each URL and wait until every fetch has ended."""
        page = await self._tab()
        await self._visit(page, "")
        script = "urls => Promise.allSettled(urls.map(u => fetch(u, {mode: 'no-cors'})))"
        await page.evaluate(script, urls)
        await page.close()

    async def search(self, term: str) -> list[str]:
        """Type ``term`` into the site's search box on the home page; the results' links."""
        page = await self._tab()
        await self._visit(page, "")
        box = page.locator("input.md-search__input")
        await box.click()
        await box.fill(term)
        results = page.locator("a.md-search-result__link")
        await results.first.wait_for(timeout=SEARCH_TIMEOUT_MS)
        hrefs = [str(await a.get_attribute("href")) for a in await results.all()]
        await page.close()
        return hrefs


@contextlib.contextmanager
def _dead_port() -> Iterator[int]:
    """A loopback port held bound but not listening: a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
