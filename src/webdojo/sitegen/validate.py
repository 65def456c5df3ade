"""Is a generated site fit to keep? Static checks of its files, then real Chromium: every page
(``page_check.py``) and every task's reference and wrong solutions (``webdojo sites check``'s
``check_task``, the same replay a user's own site gets).

Every problem is a sentence the model can act on. A page that hangs or crashes its tab makes
the result ``fatal``: the site is rejected without replaying its tasks or asking for a repair.
The browser is launched with every host name resolving to nothing, so not even a task replay
can reach the network; the pages' own requests outside the site are counted and aborted.
"""

from __future__ import annotations

import asyncio
import posixpath
import re
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.checks.sites import check_task
from webdojo.errors import WebdojoError
from webdojo.rollout.env_client import InProcessEnv
from webdojo.sitegen.images import image_tags
from webdojo.sitegen.page_check import RASTER, PageFindings, check_page
from webdojo.sites.server import SiteServer
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import Site, load_site
from webdojo.tasks.schema import Task

# Chromium resolves no host name at all (loopback IPs need no resolving): defence in depth
# under the per-page routes.
OFFLINE_ARGS = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
_EXTERNAL = re.compile(
    r"""(?:\b(?:src|href|action|poster)\s*=\s*["']?|url\(\s*["']?|@import\s+["']|"""
    r"""\b(?:fetch|import)\(\s*["'`])\s*((?:https?:)?//[^\s"'`)>]+)""",
    re.I,
)
_RASTER_DATA = re.compile(r"data:image/(?:png|jpe?g|gif|webp|bmp|avif)", re.I)
_RASTER_ALT = "|".join(re.escape(suffix) for suffix in RASTER)
_RASTER_REF = re.compile(
    rf"""(?:\bsrc\s*=\s*["']?|url\(\s*["']?)([^\s"'`)>]+(?:{_RASTER_ALT}))\b""", re.I
)


@dataclass(frozen=True)
class ValidationSettings:
    """Deadlines and limits of one site's validation."""

    navigation_timeout_s: float = 10.0  # a page load; past it the page is taken as hung
    action_timeout_s: float = 5.0  # one solution step, the layout script, the screenshot
    tasks_deadline_s: float = 240.0  # every replay of one site together
    concurrency: int = 4  # pages and replays in flight
    viewport: tuple[int, int] = (1280, 720)  # the window the layout checks assume

    def session(self) -> SessionOptions:
        width, height = self.viewport
        return SessionOptions(
            viewport_width=width,
            viewport_height=height,
            action_timeout_s=self.action_timeout_s,
            navigation_timeout_s=self.navigation_timeout_s,
            # offline: no other host at all (the site server's origin is allowed where used)
            network=NetworkPolicy(allow_hosts=("127.0.0.1",)),
        )


@dataclass
class Validation:
    problems: list[str] = field(default_factory=list)
    fatal: str | None = None  # hung or crashed: rejected without repair
    external: list[str] = field(default_factory=list)  # blocked requests outside the site
    screenshot: bytes | None = None  # the home page, for the diversity measure

    @property
    def ok(self) -> bool:
        return self.fatal is None and not self.problems


def static_problems(files: dict[str, str], images: Collection[str] = ()) -> list[str]:
    """What the files say without running them: external references and raster images other
    than ``images`` (the site paths of the pictures an image model drew for it)."""
    problems = []
    for name, text in sorted(files.items()):
        for url in dict.fromkeys(m.group(1) for m in _EXTERNAL.finditer(text)):
            problems.append(f"{name}: refers to {url} outside the site (use relative URLs)")
        if _RASTER_DATA.search(text):
            problems.append(f"{name}: embeds a raster image (data:image/...): use inline SVG")
        for ref in dict.fromkeys(m.group(1) for m in _RASTER_REF.finditer(text)):
            if posixpath.normpath(posixpath.join(posixpath.dirname(name), ref)) not in images:
                problems.append(f"{name}: uses the raster image {ref}: use inline SVG")
    unfilled = dict.fromkeys(name for name, _, has_src in image_tags(files) if not has_src)
    problems += [
        f"{name}: <img data-image-prompt> needs an image model, and this run has none: "
        "draw the picture as inline SVG"
        for name in unfilled
    ]
    return problems


class Validator:
    """One browser and one static server for every site of a run: ``async with Validator()``."""

    def __init__(self, settings: ValidationSettings | None = None) -> None:
        self.settings = settings or ValidationSettings()
        self._scratch = tempfile.TemporaryDirectory(prefix="webdojo-sitegen-")
        self.server = SiteServer({})
        self.env = InProcessEnv(
            self.server, self.settings.session(), BrowserConfig(extra_args=OFFLINE_ARGS)
        )
        self.store = RunStore(Path(self._scratch.name))
        self._limit = asyncio.Semaphore(self.settings.concurrency)

    async def __aenter__(self) -> Validator:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self.store.close()
        await self.env.aclose()
        self.server.close()
        self._scratch.cleanup()

    async def validate(
        self, directory: Path, files: dict[str, str], images: Collection[str] = ()
    ) -> Validation:
        """Check the site written in ``directory`` (``files``: the model's files in it;
        ``images``: the site paths of the PNGs an image model drew for it, the only raster
        images allowed)."""
        result = Validation(problems=static_problems(files, images))
        try:
            site, tasks = load_site(directory)
        except WebdojoError as exc:
            result.problems.append(str(exc))
            return result
        self.server.add(site)
        pages = await self._pages(site, images)
        for found in pages:
            result.problems += found.problems
            result.external += found.external
        result.problems += [
            f"{f.page}: loads {url} from outside the site (blocked)"
            for f in pages
            for url in dict.fromkeys(f.external)
        ]
        result.fatal = next((f.fatal for f in pages if f.fatal), None)
        result.screenshot = pages[0].screenshot if pages else None
        if result.fatal is None:
            await self._tasks(tasks, result)
        return result

    async def _pages(self, site: Site, images: Collection[str]) -> list[PageFindings]:
        host = await self.env.host()
        options = self.settings.session().allowing(self.server.base_url)  # the site server
        name = site.info.name
        allowed = frozenset(urlsplit(self.server.url_for(name, path)).path for path in images)

        async def one(page: str) -> PageFindings:
            async with self._limit:
                return await check_page(
                    host, self.server.url_for(name, page), page, options, allowed_images=allowed
                )

        return list(await asyncio.gather(*(one(page) for page in site.info.pages)))

    async def _tasks(self, tasks: list[Task], result: Validation) -> None:
        async def one(task: Task) -> Any:
            async with self._limit:
                return await check_task(self.env, self.store, task)

        try:
            async with asyncio.timeout(self.settings.tasks_deadline_s):
                checked = await asyncio.gather(*(one(task) for task in tasks))
        except TimeoutError:
            result.fatal = (
                f"replaying the tasks' solutions took longer than "
                f"{self.settings.tasks_deadline_s:g} s (a page that stops answering?)"
            )
            return
        for task, outcome in zip(tasks, checked, strict=True):
            result.problems += [f"task {task.id}: {p}" for p in outcome.problems]
