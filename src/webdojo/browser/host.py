"""The browser of a process: one Playwright driver, one Chromium, many sessions.

Each session gets a fresh browser context (cookies, storage, cache, tabs), never reused:
contexts are cheap (~160 ms with the first page) next to a browser launch, and they isolate
episodes completely. Service workers are blocked (they outlive pages and cache across
navigations). Downloads land in a directory of the session's own, capped and removed with
the session (``downloads.py``). The driver and Chromium keep their temporary files (profile,
artifacts) in a directory of the host's own, named after its process (``host_dir.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import psutil
from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from webdojo.browser.chromium import BrowserConfig, find_chromium
from webdojo.browser.downloads import DownloadRoot
from webdojo.browser.guard import first_line
from webdojo.browser.host_dir import HostDir
from webdojo.browser.netguard import NetGuard
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.browser.page_scripts import INIT_JS
from webdojo.browser.session import SETUP_TIMEOUT_S, BrowserSession
from webdojo.browser.stale_dirs import pid_alive
from webdojo.browser.windows import WindowWatch
from webdojo.errors import BrowserClosed, ChromiumNotFound, InfraError

if TYPE_CHECKING:
    from webdojo.cache.archive import Archive
    from webdojo.cache.replayer import Replayer


CLOSE_TIMEOUT_S = 10.0  # closing the browser, then stopping the driver (each)
PROFILE_PREFIX = "playwright_chromiumdev_profile-"  # the driver's temporary profiles
CLEANUP_WAIT_S = 2.0  # for the driver to remove a dead browser's temporary directories


class BrowserHost:
    """Create with ``await BrowserHost.launch()``; close with ``aclose`` or ``async with``."""

    def __init__(
        self,
        playwright: Playwright,
        browser: Browser,
        executable: str,
        pid: int | None = None,
        host_dir: HostDir | None = None,
    ) -> None:
        self._playwright = playwright
        self._browser = browser
        self.executable = executable
        self.version: str = browser.version
        self.pid = pid  # Chromium's main process; None if the browser did not say
        self.started = _start_time(pid)  # its psutil create_time: with the pid, its identity
        self.profile = _profile_dir(pid)  # the temporary profile the driver made for it
        self.host_dir = host_dir  # the driver's TMPDIR, named after this process (host_dir.py)
        # Held until closed (each session forgets itself then): a session dropped unclosed
        # still has a context in the browser and its policy proxy's socket, which aclose ends.
        self._sessions: set[BrowserSession] = set()
        self._archives: dict[str, Archive] = {}  # opened once, shared by the sessions replaying
        self._closed = False
        self.downloads = DownloadRoot(browser)  # every session's download directory
        self.windows = WindowWatch(browser)  # every session's windows past its tab cap
        browser.on("disconnected", lambda _browser: self._on_disconnected())

    @classmethod
    async def launch(cls, config: BrowserConfig | None = None) -> BrowserHost:
        config = config or BrowserConfig()
        executable = config.executable or find_chromium(config.headless)
        if not (os.path.isfile(executable) and os.access(executable, os.X_OK)):
            raise ChromiumNotFound(f"{executable!r} is not an executable Chromium")
        host_dir = HostDir.make()
        try:
            with host_dir.driver_tmpdir():
                playwright = await async_playwright().start()
        except BaseException:
            host_dir.remove()
            raise
        try:
            browser = await playwright.chromium.launch(
                executable_path=executable,
                headless=config.headless,
                args=config.launch_args(),
                timeout=config.launch_timeout_s * 1000,
            )
        except BaseException as exc:
            await playwright.stop()
            host_dir.remove()
            if isinstance(exc, PlaywrightError):
                raise BrowserClosed(
                    f"Chromium at {executable} did not start: {first_line(exc)}"
                ) from exc
            raise
        return cls(playwright, browser, executable, await _browser_pid(browser), host_dir)

    @property
    def browser(self) -> Browser:
        """The Playwright browser: an escape hatch for tools and tests."""
        return self._browser

    def is_connected(self) -> bool:
        """Whether the browser process is alive and reachable."""
        return not self._closed and self._browser.is_connected()

    def is_alive(self) -> bool:
        """``is_connected``, and Chromium's main process still running. A killed browser's
        process is gone up to half a second before Playwright reports the disconnection;
        health asks this (a read of /proc, never a call to the browser)."""
        if not self.is_connected():
            return False
        return self.pid is None or self.started is None or process_running(self.pid, self.started)

    @property
    def sessions(self) -> int:
        """How many sessions are open."""
        return len(self._sessions)

    async def new_context(
        self,
        options: SessionOptions | None = None,
        proxy: dict[str, str] | None = None,
        replayed: bool = False,
    ) -> BrowserContext:
        """A bare context with webdojo's settings (viewport, locale, service workers blocked,
        downloads refused until a session gives it a directory) and nothing else: what
        ``new_session`` builds on, and what tools that drive Playwright themselves (recording,
        replay, benchmarks) take. The network policy is ``new_session``'s: a bare context goes
        through ``proxy`` only when given one. A ``replayed`` context's whole traffic is
        answered in this process (``replay_context``), so it accepts the replay's own TLS
        certificate."""
        options = options or SessionOptions()
        if not self.is_connected():
            raise BrowserClosed("the browser is gone; launch a new BrowserHost")
        try:
            async with asyncio.timeout(SETUP_TIMEOUT_S):
                return await self._browser.new_context(
                    viewport={"width": options.viewport_width, "height": options.viewport_height},
                    device_scale_factor=1,  # screenshot pixels == CSS pixels
                    service_workers="block",
                    accept_downloads=False,
                    locale=options.locale,
                    timezone_id=options.timezone_id,
                    user_agent=options.user_agent,
                    color_scheme=options.color_scheme,
                    proxy=proxy,  # type: ignore[arg-type]
                    ignore_https_errors=replayed,
                )
        except TimeoutError as exc:
            raise InfraError("the browser did not create a context in time") from exc
        except PlaywrightError as exc:
            raise BrowserClosed(f"could not create a browser context: {first_line(exc)}") from exc

    async def new_session(self, options: SessionOptions | None = None) -> BrowserSession:
        """A fresh context with one blank tab, behind its network policy's proxy (a replay's
        proxy answers every connection itself)."""
        options = options or SessionOptions()
        replayer = self._replayer(options.archive) if options.archive else None
        netguard = await self._netguard(options.network, replayer)
        try:
            context = await self.new_context(
                options, netguard.proxy if netguard else None, _proxied(replayer)
            )
        except BaseException:
            if netguard is not None:
                await netguard.aclose()
            raise
        session = BrowserSession(self, context, options, netguard)
        try:
            # The init script first: a page that Playwright sets up while a context-level
            # script is being added can miss it (CI once saw a document without hooks).
            await session._add_init_script(INIT_JS)
            if replayer is not None:  # after the hooks: their document tokens stay truly random
                session.replayer = replayer
                await replayer.attach(context)
            if options.record:
                from webdojo.cache.recorder import recording_sink  # (WARC, SQLite, YAML)

                sink = recording_sink(options.record)
                session.recording = (sink, sink.recorder())
                await session.recording[1].attach(context)
            await session._open()
            await session._watch_downloads(self.downloads)
        except BaseException:
            await session.aclose()
            raise
        self._sessions.add(session)
        return session

    @contextlib.asynccontextmanager
    async def replay_context(
        self, replayer: Replayer, options: SessionOptions | None = None
    ) -> AsyncIterator[BrowserContext]:
        """A bare context (``new_context``) served by ``replayer``, closed on exit with its
        proxy: what the replay tools and benchmarks drive."""
        netguard = await self._netguard(NetworkPolicy(enabled=False), replayer)
        try:
            context = await self.new_context(
                options, netguard.proxy if netguard else None, _proxied(replayer)
            )
            try:
                await replayer.attach(context)
                yield context
            finally:
                with contextlib.suppress(PlaywrightError):
                    await context.close()
        finally:
            if netguard is not None:
                await netguard.aclose()

    def _replayer(self, archive: str) -> Replayer:
        from webdojo.cache.replayer import Replayer  # only sessions that replay pay

        return Replayer(self._archive(archive))

    @staticmethod
    async def _netguard(policy: NetworkPolicy, replayer: Replayer | None) -> NetGuard | None:
        """The proxy of a context: the policy's, with a replay answering every connection."""
        if replayer is not None and replayer.proxied:
            from webdojo.browser.replay_gate import ReplayGate

            return await ReplayGate(policy, replayer).start()
        return await NetGuard(policy).start() if policy.enabled else None

    def _archive(self, path: str) -> Archive:
        from webdojo.cache.archive import Archive

        if path not in self._archives:
            self._archives[path] = Archive.open(Path(path))
        return self._archives[path]

    def _on_disconnected(self) -> None:
        """Operations under way on a dead browser would wait out their deadlines (a wait for a
        page load wakes on no event): end them now."""
        for session in list(self._sessions):
            session.on_browser_gone()

    def _forget(self, session: BrowserSession) -> None:
        self._sessions.discard(session)

    async def aclose(self) -> None:
        """Close every session, the browser and the driver. Idempotent."""
        if self._closed:
            return
        for session in list(self._sessions):
            await session.aclose()
        self._closed = True
        await self.windows.aclose()
        for archive in self._archives.values():
            archive.close()
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(self._browser.close(), CLOSE_TIMEOUT_S)
        await self._end_browser()
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(self._playwright.stop(), CLOSE_TIMEOUT_S)
        self._remove_profile()
        await self.downloads.aclose()
        if self.host_dir is not None:
            self.host_dir.remove()

    async def _end_browser(self) -> None:
        """Make sure the browser is gone and its temporary directories with it. The driver
        removes them when it sees the browser exit, and never once stopped: a browser killed
        just before ``aclose`` left its profile in TMPDIR (the test suite found them)."""
        if self._browser.is_connected() and self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)  # it did not close in time (a busy machine)
        for _ in range(int(CLEANUP_WAIT_S / 0.05)):
            if not self._browser.is_connected() and not _exists(self.profile):
                return
            await asyncio.sleep(0.05)

    def _remove_profile(self) -> None:
        """Remove what the driver left of the profile of a browser that is gone."""
        profile = self.profile
        if profile is not None and profile.exists() and not (self.pid and pid_alive(self.pid)):
            shutil.rmtree(profile, ignore_errors=True)

    async def __aenter__(self) -> BrowserHost:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def _browser_pid(browser: Browser) -> int | None:
    """Chromium's main process id, as Chromium itself reports it. Playwright does not expose
    it, and guessing from the process tree picks the wrong browser when a process runs more
    than one (each under its own driver)."""
    try:
        cdp = await asyncio.wait_for(browser.new_browser_cdp_session(), SETUP_TIMEOUT_S)
        try:
            info = await asyncio.wait_for(cdp.send("SystemInfo.getProcessInfo"), SETUP_TIMEOUT_S)
        finally:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()
    except (PlaywrightError, TimeoutError):
        return None
    return next((p["id"] for p in info.get("processInfo", []) if p.get("type") == "browser"), None)


def process_running(pid: int, started: float) -> bool:
    """Whether process ``pid`` runs (a zombie does not) and is the one created at ``started``
    (psutil's ``create_time``), not a later process that was given the same pid."""
    try:
        process = psutil.Process(pid)
        return process.create_time() == started and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _start_time(pid: int | None) -> float | None:
    if pid is None:
        return None
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).create_time()
    return None


def _profile_dir(pid: int | None) -> Path | None:
    """The temporary profile the driver made for Chromium (None if unknown, or if it was
    given a profile of the user's own, which is never removed)."""
    if pid is None:
        return None
    with contextlib.suppress(psutil.Error):
        for arg in psutil.Process(pid).cmdline():
            path = Path(arg.removeprefix("--user-data-dir="))
            if arg.startswith("--user-data-dir=") and path.name.startswith(PROFILE_PREFIX):
                return path
    return None


def _exists(path: Path | None) -> bool:
    return path is not None and path.exists()


def _proxied(replayer: Replayer | None) -> bool:
    return replayer is not None and replayer.proxied
