"""Capturing an ``Observation`` of the active tab.

Order matters: the DOM snapshot runs first (it may draw the set-of-marks overlay), then the
screenshot and the tab titles run concurrently (the screenshot waits for a compositor frame,
~16-33 ms, so the title reads are free), then the overlay is removed.

Set-of-marks is drawn by dom.js into the page (one fixed, click-through host with a closed
shadow root) and removed right after the screenshot. Drawing with Pillow instead (decode the
screenshot, draw ~80 boxes and ids, re-encode) was measured on the 2-core dev machine, shared
and noisy: overlay +10-20 ms CPU per step, Pillow +8-12 ms for a JPEG, about a tie, but
+22-39 ms for a PNG. The overlay is kept: it costs the same for both formats, its work runs
in the renderer processes instead of on the Python event loop that serves every session of a
worker, and the image is not encoded twice. (A single full-viewport <canvas> cost more: a
large raster layer.) ``webdojo bench env`` keeps measuring both ("marks", "marks pillow").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from webdojo.browser import dom
from webdojo.browser.guard import Guard, is_navigation_race
from webdojo.browser.options import SessionOptions
from webdojo.browser.screenshot import viewport_screenshot
from webdojo.browser.tabs import TabSet, TabState
from webdojo.errors import WebdojoError
from webdojo.observation import (
    AxTreeMode,
    ErrorInfo,
    Observation,
    ObservationOptions,
)

MAX_CAPTURES = 3  # screenshot attempts when navigations keep replacing the page


@dataclass(frozen=True)
class Capture:
    observation: Observation
    element_ids: frozenset[int] | None  # ids element actions may use next (None = unknown)


def error_info(error: WebdojoError | None) -> ErrorInfo | None:
    return None if error is None else error.info()


async def capture(
    tabs: TabSet,
    guard: Guard,
    session: SessionOptions,
    options: ObservationOptions,
    *,
    last_error: WebdojoError | None = None,
    timings: dict[str, float] | None = None,
) -> Capture:
    start = time.perf_counter()
    timings = dict(timings or {})
    tab = tabs.current
    # A page that navigates on its own while it is captured gives parts from two documents:
    # capture again (once), after the new one has loaded.
    for attempt in range(2):
        commits = tab.commits
        snap, shot, title = await _capture_parts(tab, guard, session, options, timings)
        if tab.commits == commits or attempt:
            break
    tab.title_hint = None
    await tab.ensure_hooks()  # before the next action, whose check reads them
    observation = Observation(
        url=tab.page.url,
        title=title,
        tabs=await tabs.describe(title),
        viewport_width=session.viewport_width,
        viewport_height=session.viewport_height,
        screenshot=shot,
        image_format=options.image_format,
        axtree=_axtree(snap, options),
        elements=snap.elements
        if snap is not None and (options.elements or options.marks)
        else None,
        dialogs=tabs.drain_dialogs(),
        last_error=error_info(last_error),
        page_done=tab.page_done,  # read with the title: by dom.js, act.js check or the hint
        timings_ms={**timings, "observe": _ms(start)},
    )
    return Capture(observation, snap.ids() if snap is not None else None)


async def _capture_parts(
    tab: TabState,
    guard: Guard,
    session: SessionOptions,
    options: ObservationOptions,
    timings: dict[str, float],
) -> tuple[dom.DomSnapshot | None, bytes | None, str]:
    """The DOM snapshot (if asked for), then the screenshot and the title: one after the
    other when the title's read readies the page for the capture, else concurrently."""
    seconds = session.action_timeout_s
    snap = None
    shot: bytes | None
    if options.wants_elements():
        start = time.perf_counter()
        snap = await _snapshot(tab, guard, options, seconds)
        timings["dom"] = _ms(start)
    try:
        start = time.perf_counter()
        if snap is None and options.screenshot and tab.title_hint is None:
            # A new page: the read of its title also readies it for the capture. Guarded as
            # the capture is: a crash ends it at once.
            async with guard("reading the page", seconds):
                title = await _title(tab, ready=True)
            shot = await _screenshot(tab, guard, options, seconds)
        else:
            shot, title = await asyncio.gather(
                _screenshot(tab, guard, options, seconds) if options.screenshot else _none(),
                _const(snap.title) if snap is not None else _title(tab),
            )
        if options.screenshot:
            timings["screenshot"] = _ms(start)
    finally:
        if options.marks:
            with contextlib.suppress(PlaywrightError, WebdojoError):
                async with guard("removing the marks", seconds):
                    await dom.remove_marks(await tab.cdp())
    return snap, shot, title


async def _snapshot(
    tab: TabState, guard: Guard, options: ObservationOptions, seconds: float
) -> dom.DomSnapshot:
    """dom.js once; if a navigation destroys its document, once more after the load. When a
    screenshot follows that nothing has readied the page for, the same evaluate readies a
    page without child frames for it."""
    lines = options.axtree is not AxTreeMode.NONE

    async def read() -> dom.DomSnapshot:
        ready = options.screenshot and tab.prepared is None and len(tab.page.frames) == 1
        commits = tab.commits
        snap, paused = await dom.take_snapshot(
            await tab.cdp(), lines=lines, marks=options.marks, ready=ready
        )
        tab.keep_prepared(commits, paused)
        return snap

    # two reads and a load, each bounded by ``seconds``; the error names the configured one
    async with guard("reading the page", seconds, grace=seconds + 1):
        try:
            snap = await read()
        except PlaywrightError as exc:
            if not is_navigation_race(exc):
                raise
            await tab.page.wait_for_load_state("load", timeout=seconds * 1000)
            snap = await read()
    tab.note(snap.hooks)
    return snap


async def _screenshot(
    tab: TabState, guard: Guard, options: ObservationOptions, seconds: float
) -> bytes:
    """JPEG (or PNG) of the viewport with CSS animations and transitions finished.

    A navigation that starts without our noticing (a timer, a meta refresh) can make a capture
    fail ("Unable to capture screenshot") or stall until its deadline when the new document
    commits under it. So the capture is raced against the tab's commits: on one, it is
    aborted (cancelling a Playwright call aborts it in the driver too), the new page's load is
    awaited, and the capture starts again. A capture that times out cancels any pending
    navigation (it would hold every later capture) and tries once more.
    """
    # up to three captures and loads, each bounded by ``seconds`` (the error names it)
    async with guard("taking a screenshot", seconds, grace=seconds * 2 + 2):
        for _ in range(MAX_CAPTURES - 1):
            try:
                shot = await _unless_committed(tab, viewport_screenshot(tab, options, seconds))
            except PlaywrightTimeout:
                await tab.stop_loading()
                continue
            except PlaywrightError:
                if tab.crashed or tab.page.is_closed():
                    raise
                shot = None
            if shot is not None:
                return shot
            with contextlib.suppress(PlaywrightError):
                await tab.page.wait_for_load_state("load", timeout=seconds * 1000)
        return await viewport_screenshot(tab, options, seconds)


async def _unless_committed(tab: TabState, call: Awaitable[bytes]) -> bytes | None:
    """The call's result, or None (the call aborted) if the main frame commits first."""
    commits = tab.commits
    work = asyncio.ensure_future(call)
    moved = asyncio.ensure_future(tab.wait_commit(commits))
    try:
        await asyncio.wait({work, moved}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        moved.cancel()
        if not work.done():
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
    return None if work.cancelled() else work.result()


async def _title(tab: TabState, *, ready: bool = False) -> str:
    """The title, from the post-action check's hint or read by act.js's check. With ``ready``
    (a capture follows), the read also readies a page without child frames for it, one
    evaluate instead of two (page_scripts.CHECK_AND_PREPARE with no ``seen``)."""
    hint, tab.title_hint = tab.title_hint, None
    if hint is not None:
        return hint
    ready = ready and len(tab.page.frames) == 1
    commits = tab.commits
    fn, args = ("check", {"op": "check", "seen": None}) if ready else ("act", {"op": "check"})
    try:
        found = await asyncio.wait_for(tab.read(fn, args), 5)
    except (PlaywrightError, TimeoutError):
        return ""  # the document is being replaced; the title is not worth failing over
    tab.note(found)
    tab.keep_prepared(commits, None if found.get("shot") is None else int(found["shot"]))
    return str(found.get("title") or "")


def _axtree(snap: dom.DomSnapshot | None, options: ObservationOptions) -> str | None:
    if snap is None or options.axtree is AxTreeMode.NONE:
        return None
    return dom.axtree_text(snap, options.axtree)


async def _none() -> None:
    return None


async def _const(value: str) -> str:
    return value


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
