"""One page of a generated site in real Chromium: what went wrong while it loaded, what it asked
of the network, how it is laid out, and its screenshot.

Every request leaves through a route: the site's own origin passes, anything else (another
host, another port of loopback) is counted and aborted, so a generated page never reaches the
network. A page that never finishes loading or stops answering (a script that never ends) or
whose tab crashes is ``fatal``: there is nothing more to learn from it.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from PIL import Image, ImageStat
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Route

from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.checks.sites import watch_page
from webdojo.errors import NavigationTimeout, PageCrashed, WebdojoError

LAYOUT_JS = (resources.files("webdojo.sitegen") / "layout.js").read_text("utf-8")
LOCAL_SCHEMES = ("data", "blob", "about")
RASTER = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".avif", ".tif", ".tiff")
BLANK_STDDEV = 1.0  # a screenshot whose channels all vary less than this is one color


@dataclass
class PageFindings:
    page: str  # the page as site.json lists it
    problems: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)  # blocked URLs outside the site
    fatal: str | None = None  # the page hung or crashed
    screenshot: bytes | None = None  # PNG of the viewport after load


async def check_page(
    host: BrowserHost,
    url: str,
    page_name: str,
    options: SessionOptions,
    *,
    allowed_images: frozenset[str] = frozenset(),
) -> PageFindings:
    """Load ``url`` and report everything wrong with it (see the module docstring).
    ``allowed_images``: URL paths of the raster images the site may load (an image model's)."""
    found = PageFindings(page_name)
    origin = _origin(url)
    session = await host.new_session(options)
    page = session.page
    try:
        await page.context.route("**/*", lambda route: _route(route, origin, found, allowed_images))
        _listen(page, found)
        await session.goto(url)
        async with asyncio.timeout(options.action_timeout_s):
            layout = await page.evaluate(LAYOUT_JS)
            found.screenshot = await page.screenshot(type="png")
        seen = layout_problems(layout) + screenshot_problems(found.screenshot)
        found.problems += [f"{page_name}: {problem}" for problem in seen]
    except NavigationTimeout:
        found.fatal = found.fatal or (
            f"{page_name}: the page did not finish loading within "
            f"{options.navigation_timeout_s:g} s (a script that never ends?)"
        )
    except PageCrashed:
        found.fatal = found.fatal or f"{page_name}: the tab crashed while loading the page"
    except (TimeoutError, PlaywrightError) as exc:
        found.fatal = found.fatal or _stuck(page_name, exc)
    except WebdojoError as exc:
        found.problems.append(f"{page_name}: {exc}")
    finally:
        await session.aclose()
    return found


def _stuck(page_name: str, exc: BaseException) -> str:
    if "crash" in str(exc).lower():
        return f"{page_name}: the tab crashed after the page loaded"
    return f"{page_name}: the page stopped answering after it loaded (a script that never ends?)"


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


async def _route(
    route: Route, origin: tuple[str, str], found: PageFindings, allowed: frozenset[str]
) -> None:
    request = route.request
    parts = urlsplit(request.url)
    if parts.scheme in LOCAL_SCHEMES:
        await route.continue_()
        return
    if (parts.scheme, parts.netloc) != origin:
        found.external.append(request.url)
        await route.abort("blockedbyclient")
        return
    if parts.path.lower().endswith(RASTER) and parts.path not in allowed:
        found.problems.append(f"raster image requested: {parts.path} (draw it as SVG)")
    await route.continue_()


def _listen(page: Any, found: PageFindings) -> None:
    name = found.page
    # requests we blocked ourselves are reported as external, not as failures
    watch_page(
        page,
        lambda problem: found.problems.append(f"{name}: {problem}"),
        ignore_failed=lambda url: url in found.external,
    )
    page.on("crash", lambda _page: setattr(found, "fatal", f"{name}: the tab crashed"))


def layout_problems(layout: dict[str, Any]) -> list[str]:
    """The findings of ``layout.js`` as problems a model can act on."""
    problems = []
    overflow = layout.get("overflow")
    if overflow:
        problems.append(
            f"horizontal overflow: the page is {overflow['scrollWidth']} px wide in a "
            f"{overflow['clientWidth']} px window"
        )
    problems += [f"overlapping text: {a} overlaps {b}" for a, b in layout.get("overlaps", [])]
    problems += [f"invisible interactive element: {e}" for e in layout.get("invisible", [])]
    return problems


def screenshot_problems(png: bytes | None) -> list[str]:
    if png is None:
        return ["no screenshot could be taken"]
    with Image.open(io.BytesIO(png)) as image:
        stddev = ImageStat.Stat(image.convert("RGB")).stddev
    if max(stddev) < BLANK_STDDEV:
        return ["the screenshot is blank: the page renders as a single color"]
    return []
