"""Popups become tabs; dialogs are dismissed and reported."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from browser_helpers import TEST_OPTIONS, ids, text
from playwright.async_api import Error as PlaywrightError

from webdojo.actions import Action, Click, CloseTab, NewTab, TabFocus
from webdojo.browser import BrowserSession
from webdojo.browser.host import BrowserHost
from webdojo.browser.windows import WindowWatch
from webdojo.observation import Observation, ObservationOptions

pytestmark = pytest.mark.browser

SHOT = ObservationOptions()


async def test_target_blank_link_opens_a_tab(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(Click(element=(await ids(session))["blank"]), SHOT)
    assert obs.last_error is None
    assert [(t.title, t.active) for t in obs.tabs] == [("Nav one", False), ("Page two", True)]
    assert obs.title == "Page two" and obs.url == base_url + "two.html"


@pytest.mark.parametrize("closer", ["closer", "closer-early"])
async def test_window_open_and_window_close(
    session: BrowserSession, base_url: str, closer: str
) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(Click(element=(await ids(session))["opener"]), SHOT)
    assert len(obs.tabs) == 2 and obs.url == base_url + "two.html?opened"
    # The popup closes itself, on click or already on mouse down (before the press is over,
    # which Playwright reports as an error): its tab goes away, the opener is active again.
    obs = await session.step(Click(element=(await ids(session))[closer]), SHOT)
    assert len(obs.tabs) == 1 and obs.title == "Nav one" and obs.last_error is None
    obs = await session.step(TabFocus(index=0), SHOT)
    assert obs.last_error is None


async def test_alert_confirm_prompt_are_dismissed(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "dialogs.html")
    found = await ids(session)
    obs = await session.step(Click(element=found["alert"]), SHOT)
    assert obs.dialogs == ["alert: hello there"] and obs.last_error is None
    obs = await session.step(Click(element=found["confirm"]), SHOT)
    assert obs.dialogs == ["confirm: sure?"]
    assert await text(session, "#out") == "confirm=false"
    obs = await session.step(Click(element=found["prompt"]), SHOT)
    assert obs.dialogs == ["prompt: name?"]
    assert await text(session, "#out") == "prompt=null"
    obs = await session.observe(SHOT)
    assert obs.dialogs == []  # reported once


async def test_beforeunload_lets_the_navigation_go(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "dialogs.html")
    found = await ids(session)
    await session.step(Click(element=found["arm"]), SHOT)
    obs = await session.step(Click(element=found["leave"]), SHOT)
    assert obs.last_error is None and obs.title == "Page two"
    assert any(d.startswith("beforeunload") for d in obs.dialogs)


async def test_a_page_opening_windows_in_a_loop_is_held_to_the_tab_cap(
    host: BrowserHost, base_url: str
) -> None:
    session = await host.new_session(replace(TEST_OPTIONS, max_tabs=4).allowing(base_url))
    try:
        await session.goto(base_url + "spam.html")
        spam = Click(element=(await ids(session))["spam"])
        obs = await _told_of_closed_windows(session, spam, closed=27, max_tabs=4)
        assert len(obs.tabs) == 4  # 30 asked for, 3 kept
        obs = await session.step(NewTab(), SHOT)
        assert obs.last_error is not None and obs.last_error.code == "bad_tab"
        obs = await session.step(TabFocus(index=0), SHOT)
        assert obs.last_error is None and obs.title == "Spam"  # the session goes on
    finally:
        await session.aclose()


async def test_windows_past_the_cap_are_closed_at_once_and_the_agent_is_told(
    host: BrowserHost, base_url: str
) -> None:
    """Windows a page opens past the cap are closed as Chromium creates them, a window whose
    page never answers too (Playwright would never report it: it would stay open, loading);
    the next observation says so, once, and the session goes on."""
    session = await host.new_session(replace(TEST_OPTIONS, max_tabs=2).allowing(base_url))
    try:
        await session.goto(base_url + "windows.html")
        found = await ids(session)
        await _told_of_closed_windows(session, Click(element=found["three"]), 2, 2)
        obs = await _until_tabs(session, 2)  # the kept window shows once its page has loaded
        assert [t.url for t in obs.tabs] == [base_url + "windows.html", base_url + "two.html?a"]
        await _until_open_windows(session, 2)
        assert len(session.page.context.pages) == 2
        obs = await session.step(TabFocus(index=0), SHOT)
        assert obs.last_error is None and obs.title == "Windows"  # told once; it goes on
        for button in ("hung", "blank"):  # window.open, a target=_blank link
            obs = await _told_of_closed_windows(session, Click(element=found[button]), 1, 2)
            assert obs.title == "Windows" and len(obs.tabs) == 2
            await _until_open_windows(session, 2)
        await session.step(TabFocus(index=1), SHOT)
        obs = await session.step(CloseTab(), SHOT)  # room for one
        assert obs.last_error is None and len(obs.tabs) == 1
        obs = await session.step(Click(element=(await ids(session))["blank"]), SHOT)
        assert obs.last_error is None and obs.url == base_url + "two.html?blank"
        assert len(obs.tabs) == 2
    finally:
        await session.aclose()


async def test_without_the_window_watcher_windows_past_the_cap_still_close(
    host: BrowserHost, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser's window watcher did not start: sessions still open (each tries it again),
    and a window past the cap is closed once Playwright reports it."""
    tries = 0

    async def fail() -> None:
        nonlocal tries
        tries += 1
        raise PlaywrightError("no browser-level CDP session")

    watch = WindowWatch(host.browser)
    monkeypatch.setattr(watch, "_start", fail)
    monkeypatch.setattr(host, "windows", watch)
    options = replace(TEST_OPTIONS, max_tabs=1).allowing(base_url)
    await (await host.new_session(options)).aclose()
    session = await host.new_session(options)
    try:
        assert tries == 2
        await session.goto(base_url + "windows.html")
        obs = await _told_of_closed_windows(
            session, Click(element=(await ids(session))["blank"]), 1, 1
        )
        assert obs.title == "Windows" and len(obs.tabs) == 1
    finally:
        await session.aclose()


async def _told_of_closed_windows(
    session: BrowserSession, action: Action, closed: int, max_tabs: int
) -> Observation:
    """Step, then observe until the observations have told of ``closed`` windows (they
    arrive one by one: wait for them, however slow); returns the last observation."""
    obs = await session.step(action, SHOT)
    told = 0
    for attempt in range(100):
        assert len(obs.tabs) <= max_tabs
        if attempt == 0 and obs.last_error is not None and obs.last_error.code != "tab_limit":
            pass  # the action's own error (a busy page may fail the click): told first
        elif obs.last_error is not None:
            assert obs.last_error.code == "tab_limit" and obs.last_error.fault == "env"
            assert obs.last_error.details is not None
            assert obs.last_error.details["max_tabs"] == max_tabs
            told += obs.last_error.details["closed"]
        if told >= closed:
            break
        await asyncio.sleep(0.05)
        obs = await session.observe(SHOT)
    assert told == closed
    return obs


async def _until_tabs(session: BrowserSession, count: int) -> Observation:
    """Observe until the tab list shows ``count`` tabs (a window the page opened is listed
    once its first page has loaded: slow on a loaded machine)."""
    for _ in range(200):
        obs = await session.observe(SHOT)
        if len(obs.tabs) == count:
            return obs
        await asyncio.sleep(0.05)
    return obs


async def _until_open_windows(session: BrowserSession, count: int) -> None:
    """Wait until Chromium itself has ``count`` pages open in the session's context (not
    Playwright's list: it shows a window only once its first page has loaded)."""
    for _ in range(100):
        if await _open_windows(session) == count:
            return
        await asyncio.sleep(0.05)
    assert await _open_windows(session) == count


async def _open_windows(session: BrowserSession) -> int:
    page = session.page
    cdp = await page.context.new_cdp_session(page)
    context_id = (await cdp.send("Target.getTargetInfo"))["targetInfo"]["browserContextId"]
    await cdp.detach()
    assert page.context.browser is not None
    root = await page.context.browser.new_browser_cdp_session()
    targets = (await root.send("Target.getTargets"))["targetInfos"]
    await root.detach()
    return sum(t["type"] == "page" and t["browserContextId"] == context_id for t in targets)
