"""A browser launched ahead, so that replacing the worker's browser costs no launch.

A worker replaces its browser when the browser dies (a SIGKILL, an out-of-memory kill, or
Chromium 156 crashing its browser process when a renderer dies during a screenshot) and when
it recycles a worn-out one. Launching takes about 0.35 s on an idle 2-core machine and over
a second under load, and the next create waits for it. With a spare, the next create takes
the spare at once, and the next spare launches ``DELAY_S`` later, when the creates that the
replacement let through are done. The cost: one idle browser per worker (about 130 MB PSS).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.host import BrowserHost
from webdojo.errors import WebdojoError

_log = logging.getLogger(__name__)

DELAY_S = 2.0  # after a take, before launching the next spare: let recovering creates go first


class SpareBrowser:
    """``take()`` a launched browser: the spare if one is ready, else a fresh launch."""

    def __init__(self, config: BrowserConfig, enabled: bool) -> None:
        self._config = config
        self.enabled = enabled
        self._next: asyncio.Task[BrowserHost] | None = None
        self._launching = False  # the spare's delay is over: its launch is under way
        self.taken = 0  # spares handed out

    @property
    def ready(self) -> bool:
        task = self._next
        return task is not None and task.done() and not task.cancelled() and not task.exception()

    @property
    def pid(self) -> int | None:
        return self._next.result().pid if self.ready and self._next else None

    async def take(self) -> BrowserHost:
        """The spare if it launched and is still connected (waiting for one that is
        launching), else a browser launched now; then the next spare is started."""
        task = self._release()
        host = await self._settle(task) if task is not None else None
        if host is None:
            host = await BrowserHost.launch(self._config)
        else:
            self.taken += 1
        if self.enabled:  # the next spare, in the background
            self._next = asyncio.get_running_loop().create_task(self._launch())
        return host

    async def _launch(self) -> BrowserHost:
        await asyncio.sleep(DELAY_S)
        self._launching = True  # from here on it is awaited, not cancelled: a launch cut
        return await BrowserHost.launch(self._config)  # short would leave its driver behind

    def _release(self) -> asyncio.Task[BrowserHost] | None:
        """The spare's task, detached; None (and cancelled) if it is still in its delay."""
        task, self._next = self._next, None
        launching, self._launching = self._launching, False
        if task is not None and not task.done() and not launching:
            task.cancel()
            return None
        return task

    async def _settle(self, task: asyncio.Task[BrowserHost]) -> BrowserHost | None:
        try:
            host = await task
        except WebdojoError as exc:
            _log.warning("the spare browser did not launch (%s); launching now", exc)
            return None
        # its process, not only the connection: Playwright reports a killed browser's
        # disconnection up to half a second after the process is gone
        if host.is_alive():
            return host
        with contextlib.suppress(WebdojoError):  # it died while it waited
            await host.aclose()
        return None

    async def aclose(self) -> None:
        task = self._release()
        if task is None:
            return
        with contextlib.suppress(WebdojoError):
            host = await task
            await host.aclose()
