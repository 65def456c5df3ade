"""Popups become tabs; dialogs are dismissed and reported."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from browser_helpers import TEST_OPTIONS, ids, text

from webdojo.actions import Click, NewTab, TabFocus
from webdojo.browser import BrowserSession
from webdojo.browser.host import BrowserHost
from webdojo.observation import ObservationOptions

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
        obs = await session.step(Click(element=(await ids(session))["spam"]), SHOT)
        assert obs.last_error is None
        for _ in range(100):  # the 30 windows arrive one by one: wait for them, however slow
            assert len(obs.tabs) <= 4
            if len(obs.tabs) == 4:
                break
            await asyncio.sleep(0.05)
            obs = await session.observe(SHOT)
        assert len(obs.tabs) == 4  # 30 asked for, 3 kept
        obs = await session.step(NewTab(), SHOT)
        assert obs.last_error is not None and obs.last_error.code == "bad_tab"
        obs = await session.step(TabFocus(index=0), SHOT)
        assert obs.last_error is None and obs.title == "Spam"  # the session goes on
    finally:
        await session.aclose()
