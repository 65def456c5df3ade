"""One episode's browser: a fresh context with its tabs; execute actions, observe.

Lifecycle (``SessionState``): OPEN -> CLOSED by ``aclose``; OPEN -> CRASHED when the active
page crashes or the browser dies. A crashed session can still be closed and asked for its
``final_state``; ``execute``/``observe`` then raise ``PageCrashed`` (or ``BrowserClosed``).

Errors. ``execute`` raises typed webdojo errors only. ``step`` turns agent and env faults
(invalid action, timeout, page refused, page crashed) into ``observation.last_error`` and
returns an observation anyway (without a screenshot when the page cannot give one); infra
faults (``BrowserClosed``) and misuse (``StateError``) raise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from enum import StrEnum
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import BrowserContext, Page

from webdojo.actions import Action, ActionContext, GoBack, GoForward, Goto, Stop, check_action
from webdojo.browser import page_scripts
from webdojo.browser.executor import Executor
from webdojo.browser.guard import Guard
from webdojo.browser.hung import (
    OperationBound,
    action_deadline,
    observe_deadline,
    step_deadline,
)
from webdojo.browser.netguard import NetGuard
from webdojo.browser.observe import capture, error_info
from webdojo.browser.options import SessionOptions
from webdojo.browser.start_page import check_status, unreachable
from webdojo.browser.tabs import TabSet, expire
from webdojo.browser.windows import WindowCap
from webdojo.errors import (
    ActionFailed,
    ActionTimeout,
    AgentError,
    BrowserClosed,
    ConfigError,
    EnvError,
    NavigationTimeout,
    PageCrashed,
    StateError,
    TabLimitReached,
    WebdojoError,
)
from webdojo.observation import FinalState, Observation, ObservationOptions, Tab

if TYPE_CHECKING:
    from webdojo.browser.downloads import DownloadRoot, SessionDownloads
    from webdojo.browser.host import BrowserHost
    from webdojo.cache.recorder import Recorder, RecordingSink
    from webdojo.cache.replayer import Replayer

__all__ = ["BrowserSession", "SessionOptions", "SessionState"]

T = TypeVar("T")

SETUP_TIMEOUT_S = 30.0  # creating a context and its first page: slow only on a starved machine


class SessionState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"
    CRASHED = "crashed"  # the active page crashed or the browser died


class BrowserSession:
    """Created by ``BrowserHost.new_session``; never reused across episodes."""

    def __init__(
        self,
        host: BrowserHost,
        context: BrowserContext,
        options: SessionOptions,
        netguard: NetGuard | None = None,
    ):
        self.options = options
        self.netguard = netguard  # the proxy enforcing options.network (None: policy off)
        self._host = host
        self._context = context
        self._closed = False
        self._tabs = TabSet(context, options.max_tabs)
        self._windows = WindowCap(self._tabs, host.windows)  # closes windows past max_tabs
        # every operation under way: whole ones (OperationBound) and the guarded calls within
        self._deadlines: set[asyncio.Timeout] = set()
        self._guard = Guard(self._tabs, host.is_connected, self._deadlines)
        self._bounded = OperationBound(self._tabs, host.is_connected, self._deadlines)
        self._executor = Executor(self._tabs, self._guard, options, netguard)
        self._element_ids: frozenset[int] | None = None
        self.replayer: Replayer | None = None  # set when the session replays an archive
        self.recording: tuple[RecordingSink, Recorder] | None = None  # set when it records
        self.downloads: SessionDownloads | None = None  # its download directory (downloads.py)
        # Set by a warm pool that loaded this start page ahead (in this unused context): the
        # next ``goto`` to exactly this URL finds it loaded and does not load it again.
        self.preloaded: str | None = None

    def adopt(self, options: SessionOptions) -> None:
        """Give a pre-created (warm) session its episode's options before first use. Only the
        per-call settings (deadlines, caps, allowed origins) may differ: the context's own
        (viewport, locale, network rules...) were fixed when it was created
        (``SessionOptions.context_key``)."""
        if options.context_key() != self.options.context_key():
            raise ConfigError("a warm session cannot change its viewport, locale or network rules")
        self.options = options
        self._tabs.max_tabs = options.max_tabs
        if self.netguard is not None:  # the proxy reads its policy per connection
            self.netguard.policy = options.network
        self._executor = Executor(self._tabs, self._guard, options, self.netguard)
        if self.downloads is not None:
            self.downloads.set_caps(*_download_caps(options))

    async def _open(self) -> None:
        async with self._guard("opening the first tab", SETUP_TIMEOUT_S):
            await self._tabs.new_tab()
        async with self._guard("watching for windows", SETUP_TIMEOUT_S):
            await self._windows.start(await self._tabs.current.cdp())

    async def _watch_downloads(self, root: DownloadRoot) -> None:
        """Let the context download into a directory of its own (before any page loads)."""
        async with self._guard("setting up downloads", SETUP_TIMEOUT_S):
            page_cdp = await self._tabs.current.cdp()  # kept: stop_loading uses it too
            self.downloads = await root.attach(page_cdp, *_download_caps(self.options))

    async def _add_init_script(self, script: str) -> None:
        async with self._guard("installing the page hooks", SETUP_TIMEOUT_S):
            await self._context.add_init_script(script)

    # --- state ----------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        if self._closed:
            return SessionState.CLOSED
        if not self._host.is_connected() or self._tabs.context_closed:
            return SessionState.CRASHED
        if self._tabs.has_current() and self._tabs.current.crashed:
            return SessionState.CRASHED
        return SessionState.OPEN

    @property
    def page(self) -> Page:
        """The active tab's Playwright page: an escape hatch for tools and tests. Driving it
        directly bypasses deadlines and element ids."""
        return self._tabs.current.page

    def _require_usable(self) -> None:
        if self._closed:
            raise StateError("the session is closed")
        if not self._host.is_connected():
            raise BrowserClosed("the browser is gone")
        if self._tabs.context_closed:
            raise BrowserClosed("the browser context was closed")
        if self._tabs.has_current() and self._tabs.current.crashed:
            raise PageCrashed("the page crashed; the session cannot continue")

    async def _prepare(self) -> None:
        """Check the lifecycle; make sure there is an active tab and no crashed background one."""
        self._require_usable()
        async with self._guard("preparing the tab", self.options.action_timeout_s):
            await self._tabs.ensure_tab()
            await self._tabs.purge_crashed()

    def action_context(self) -> ActionContext:
        return ActionContext(
            viewport_width=self.options.viewport_width,
            viewport_height=self.options.viewport_height,
            element_ids=self._element_ids,
            tab_count=len(self._tabs.tabs),
        )

    # --- acting ---------------------------------------------------------------------------

    async def goto(self, url: str) -> None:
        """Open the episode's start URL in the active tab. It is checked as an agent's
        ``goto`` is: the env's own local servers are reachable only because their origins are
        in ``options.network`` (``SessionOptions.allowing``). Raises ``NetworkBlocked``,
        ``StartPageFailed`` (an HTTP error status), ``NavigationTimeout``, ``ActionFailed``,
        ``SiteUnreachable``, ``PageCrashed``."""
        if self.netguard is not None:
            self.netguard.precheck(url)  # NetworkBlocked before anything is sent
        preloaded, self.preloaded = self.preloaded, None
        if preloaded == url and self.state is SessionState.OPEN:
            return  # the warm pool loaded it (see ``preloaded``)
        seconds = self.options.navigation_timeout_s
        await self._bounded(f"opening {url}", seconds, self._goto(url), NavigationTimeout)

    async def _goto(self, url: str) -> None:
        await self._prepare()
        self._element_ids = None  # ids of the previous page mean nothing on the new one
        page = self._tabs.current.page
        try:
            response = await self._executor.navigate(
                f"opening {url}", lambda ms: page.goto(url, wait_until="load", timeout=ms)
            )
        except ActionFailed as exc:
            down = unreachable(url, exc)
            if down is None:
                raise
            raise down from exc
        check_status(url, response)

    async def execute(self, action: Action, *, shot: bool = False) -> None:
        """Validate and perform one action. ``stop`` does nothing (the env layer ends the
        episode). ``shot``: a screenshot is taken right after (``step``). Raises webdojo
        errors only."""
        seconds = action_deadline(action, self.options)
        late = NavigationTimeout if isinstance(action, Goto | GoBack | GoForward) else ActionTimeout
        await self._bounded(action.describe(), seconds, self._execute(action, shot), late)

    async def _execute(self, action: Action, shot: bool) -> None:
        await self._prepare()
        ctx = self.action_context()
        check_action(action, ctx)
        await self._executor.run(action, ctx, shot=shot)

    async def observe(self, options: ObservationOptions) -> Observation:
        return await self._observe_within(self.observe_deadline(), options, None, {})

    def observe_deadline(self) -> float:
        """An observation's deadline (hung.py): longer when a new window must load first."""
        return observe_deadline(self.options, self._tabs.pending_popups())

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        """Execute, then observe. Agent and env faults land in ``last_error``. The step's
        deadline is the sum of both; the observation gets its own deadline, or less if the
        action ran over (a page cut off after a timeout)."""
        start = time.perf_counter()
        deadline = step_deadline(action, self.options, self._tabs.pending_popups())
        error: WebdojoError | None = None
        try:
            await self.execute(action, shot=options.screenshot)
        except (AgentError, EnvError) as exc:
            error = exc
        spent = time.perf_counter() - start
        timings = {"action": round(spent * 1000, 2)}
        try:
            seconds = max(min(deadline - spent, self.observe_deadline()), 0.05)
            # A stop that went through ends the episode: news of refused windows would make
            # it look refused (episode_rules), and nobody acts on them any more.
            tell = not isinstance(action, Stop) or error is not None
            return await self._observe_within(seconds, options, error, timings, tell)
        except EnvError as exc:
            return self._bare_observation(error or exc, timings)
        finally:
            self._tabs.drop_prepared()  # readied for this step's screenshot only

    async def _observe_within(
        self,
        seconds: float,
        options: ObservationOptions,
        error: WebdojoError | None,
        timings: dict[str, float],
        tell_refused: bool = True,
    ) -> Observation:
        work = self._observe(options, error, timings, tell_refused)
        return await self._bounded("observing the page", seconds, work)

    async def _observe(
        self,
        options: ObservationOptions,
        error: WebdojoError | None,
        timings: dict[str, float],
        tell_refused: bool,
    ) -> Observation:
        await self._prepare()
        try:
            await self._executor.adopt_popup()  # a window the page opened on its own
        except NavigationTimeout as exc:
            error = error or exc
        await self._windows.closed()
        if tell_refused and error is None:  # an action's own error comes first: the news
            refused = self._tabs.take_refused()  # of refused windows waits for the next one
            error = self._tab_limit(refused) if refused else None
        result = await capture(
            self._tabs, self._guard, self.options, options, last_error=error, timings=timings
        )
        self._element_ids = result.element_ids
        return self._with_downloads(result.observation)

    def _tab_limit(self, refused: int) -> TabLimitReached:
        cap = self._tabs.max_tabs
        windows = f"{refused} windows" if refused > 1 else "a window"
        message = (
            f"the page opened {windows} past this session's cap of {cap} tabs, closed at "
            "once (close a tab to make room)"
        )
        return TabLimitReached(message, max_tabs=cap, closed=refused)

    def _with_downloads(self, observation: Observation) -> Observation:
        ended = self.downloads.drain() if self.downloads is not None else []
        return observation.model_copy(update={"downloads": ended}) if ended else observation

    def _bare_observation(self, error: WebdojoError, timings: dict[str, float]) -> Observation:
        """What can be said without touching the page (it crashed or does not answer)."""
        self._element_ids = frozenset()
        tabs = [
            Tab(index=i, url=t.page.url, title="", active=t is self._tabs.current)
            for i, t in enumerate(self._tabs.tabs)
        ]
        observation = Observation(
            url=self._tabs.current.page.url if self._tabs.has_current() else "",
            title="",
            tabs=tabs,
            viewport_width=self.options.viewport_width,
            viewport_height=self.options.viewport_height,
            dialogs=self._tabs.drain_dialogs(),
            last_error=error_info(error),
            timings_ms=timings,
        )
        return self._with_downloads(observation)

    def on_browser_gone(self) -> None:
        """The browser died: end every operation under way now, with ``BrowserClosed``."""
        expire(self._deadlines)

    # --- the end of an episode ------------------------------------------------------------

    async def final_state(self, answer: str | None) -> FinalState:
        """URL, title, localStorage (JSON values parsed) and body text of the active tab.
        A crashed page gives only its URL; a dead browser raises ``BrowserClosed``."""
        if self._closed:
            raise StateError("the session is closed")
        if not self._host.is_connected():
            raise BrowserClosed("the browser is gone")
        tab = self._tabs.current if self._tabs.has_current() else None
        if tab is None or tab.crashed:
            crashed = tab is not None  # no tab at all is the agent's doing: scored as it is
            return FinalState(url=tab.page.url if tab else "", answer=answer, crashed=crashed)
        args = {"op": "final", "maxText": self.options.final_text_chars}
        seconds = self.options.action_timeout_s
        what = "reading the final state"
        async with self._guard(what, seconds, grace=1):  # the bound below comes first
            # The whole source, not the installed function: the read a reward rests on never
            # runs a function a page could have put in place where the init script did not run.
            read = tab.page.evaluate(page_scripts.ACT_JS, args)
            raw = await self._bounded(what, seconds, read)
        storage = {k: _parse_json(v) for k, v in raw["storage"].items()}
        return FinalState(
            url=tab.page.url, title=raw["title"], storage=storage, text=raw["text"], answer=answer
        )

    async def aclose(self) -> None:
        """Close the context (all tabs). Idempotent; never raises for a dead browser."""
        if self._closed:
            return
        self._closed = True
        self._host._forget(self)
        await self._windows.aclose()
        if self.recording is not None:  # the bodies are read from the live context
            with contextlib.suppress(WebdojoError):
                async with self._guard("saving the recording", 30):
                    await self.recording[0].collect(self.recording[1])
        try:
            async with self._guard("closing the session", 10):
                await self._context.close()
        except WebdojoError:
            pass
        finally:  # the files go even when the browser is dead
            if self.downloads is not None:
                await self.downloads.aclose()
            if self.netguard is not None:
                await self.netguard.aclose()

    async def __aenter__(self) -> BrowserSession:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _download_caps(options: SessionOptions) -> tuple[int, int]:
    return int(options.max_download_mb * 1024 * 1024), options.max_downloads


def _parse_json(value: str) -> Any:
    try:
        return json.loads(value)
    except (ValueError, TypeError):
        return value
