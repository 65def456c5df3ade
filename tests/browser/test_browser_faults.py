"""Faults: invalid actions, deadlines, crashes and a dead browser. The session keeps going
after agent and env faults; infra faults raise."""

from __future__ import annotations

import asyncio
import os
import re
import signal

import pytest
from browser_helpers import ids, text

from webdojo.actions import Click, CoordSpace, Goto, Scroll, Select, TabFocus
from webdojo.browser import BrowserHost, BrowserSession, NetworkPolicy, SessionOptions, SessionState
from webdojo.errors import BrowserClosed, EnvError, NavigationTimeout, PageCrashed, StateError
from webdojo.observation import ObservationOptions

pytestmark = pytest.mark.browser

SHOT = ObservationOptions()


async def test_invalid_ids_points_and_tabs_are_reported(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "pointer.html")
    obs = await session.step(Click(element=99), SHOT)  # no element list observed yet
    assert obs.last_error is not None and obs.last_error.code == "unknown_element"
    assert obs.last_error.fault == "agent" and obs.screenshot is not None
    await ids(session)
    for action, code in [
        (Click(element=99), "unknown_element"),  # refused by check_action this time
        (Select(element=99, option="x"), "unknown_element"),
        (Click(x=1280, y=10), "invalid_coordinates"),
        (Click(x=10, y=1001, space=CoordSpace.NORM1000), "invalid_coordinates"),
        (Scroll(direction="down", x=-1, y=5), "invalid_coordinates"),
        (TabFocus(index=3), "bad_tab"),
        (Select(element=0, option="x"), "action_failed"),  # a button is not a <select>
    ]:
        obs = await session.step(action, SHOT)
        assert obs.last_error is not None and obs.last_error.code == code, action
    obs = await session.step(Click(element=(await ids(session))["count-btn"]), SHOT)
    assert obs.last_error is None and await text(session, "#count") == "1"


async def test_covered_element_is_refused(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "modal.html")
    obs = await session.step(Click(element=(await ids(session))["under"]), SHOT)
    assert obs.last_error is not None and obs.last_error.code == "action_failed"
    assert 'covered by <div id="cover">' in obs.last_error.message


@pytest.mark.slow
async def test_navigation_timeouts_leave_the_session_usable(
    host: BrowserHost, base_url: str
) -> None:
    options = SessionOptions(action_timeout_s=5, navigation_timeout_s=2).allowing(base_url)
    async with await host.new_session(options) as session:
        await session.goto(base_url + "nav.html")
        with pytest.raises(NavigationTimeout):
            await session.goto(base_url + "slow")
        # The server never answers: the old page is still shown and still works.
        obs = await session.step(Click(element=(await ids(session))["slow"]), SHOT)
        assert obs.last_error is not None and obs.last_error.code == "navigation_timeout"
        assert obs.last_error.retryable and obs.screenshot is not None
        assert obs.url == base_url + "nav.html"
        obs = await session.step(Click(element=(await ids(session))["next"]), SHOT)
        assert obs.last_error is None and obs.title == "Page two"
        # Half a page that never finishes loading: shown as it is.
        obs = await session.step(Goto(url=base_url + "partial"), SHOT)
        assert obs.last_error is not None and obs.last_error.code == "navigation_timeout"
        assert obs.screenshot is not None and obs.title == "Partial"
        obs = await session.step(Goto(url=base_url + "two.html"), SHOT)
        assert obs.last_error is None and obs.title == "Page two"


async def test_a_navigation_timeout_names_the_configured_deadline(
    host: BrowserHost, base_url: str
) -> None:
    """The navigation's guard has a second of grace after Playwright's own timeout; the
    error still says the configured seconds (``--navigation-timeout 15`` said "16 s")."""
    options = SessionOptions(action_timeout_s=5, navigation_timeout_s=1).allowing(base_url)
    async with await host.new_session(options) as session:
        await session.goto(base_url + "nav.html")
        with pytest.raises(NavigationTimeout) as raised:
            await session.goto(base_url + "slow")  # the start page: never answers
        obs = await session.step(Goto(url=base_url + "partial"), SHOT)  # never finishes
        assert obs.last_error is not None
        for error in (raised.value.to_dict(), obs.last_error.model_dump()):
            assert error["code"] == "navigation_timeout"
            assert re.findall(r"within (\S+) s", error["message"]) == ["1"], error
            assert error["details"] == {"seconds": 1}


async def test_document_without_hooks_gets_them_and_navigations_are_seen(
    host: BrowserHost, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI once saw a document where the context's init script had not run: the session
    installs the hooks itself, and a hung navigation is still told from a busy page."""

    async def no_init_script(_session: BrowserSession, _script: str) -> None:
        pass

    monkeypatch.setattr(BrowserSession, "_add_init_script", no_init_script)
    options = SessionOptions(action_timeout_s=5, navigation_timeout_s=1).allowing(base_url)
    async with await host.new_session(options) as session:
        await session.goto(base_url + "nav.html")
        hooked = "() => !!(window[Symbol.for('webdojo')] || {}).doc"
        assert not await session.page.evaluate(hooked)
        element_ids = await ids(session)  # an observation installs them
        assert await session.page.evaluate(hooked)
        obs = await session.step(Click(element=element_ids["slow"]), SHOT)
        assert obs.last_error is not None and obs.last_error.code == "navigation_timeout"
        obs = await session.step(Click(element=(await ids(session))["next"]), SHOT)
        assert obs.last_error is None and obs.title == "Page two"


@pytest.mark.slow
async def test_action_timeout_then_next_action_works(host: BrowserHost, base_url: str) -> None:
    async with await host.new_session(
        SessionOptions(action_timeout_s=2).allowing(base_url)
    ) as session:
        await session.goto(base_url + "pointer.html")
        # A click handler that blocks the page for 4 s (synchronous XHR) outlasts the deadline.
        await session.page.evaluate(
            """() => document.getElementById('pt').onclick = () => {
                const xhr = new XMLHttpRequest(); xhr.open('GET', '/sleep?ms=4000', false);
                xhr.send(); document.getElementById('pt').textContent = 'late'; }"""
        )
        obs = await session.step(Click(x=600, y=350), ObservationOptions(screenshot=False))
        assert obs.last_error is not None and obs.last_error.code == "action_timeout"
        # A page blocked past the deadline is cut off (hung.py): its script stopped, or its
        # tab closed (a synchronous XHR cannot be interrupted). The session goes on.
        assert "the page" in obs.last_error.message
        await session.goto(base_url + "pointer.html")
        obs = await session.step(Click(element=(await ids(session))["count-btn"]), SHOT)
        assert obs.last_error is None and await text(session, "#count") == "1"


async def test_page_crash_is_reported(host: BrowserHost, base_url: str) -> None:
    # the policy off: a start URL goes through it, and chrome://crash is a blocked scheme
    session = await host.new_session(SessionOptions(network=NetworkPolicy(enabled=False)))
    await session.goto(base_url + "pointer.html")
    with pytest.raises(EnvError):  # PageCrashed, or ActionFailed if the crash event trails
        await session.goto("chrome://crash")
    for _ in range(100):  # the crash event arrives asynchronously
        if session.state is SessionState.CRASHED:
            break
        await asyncio.sleep(0.05)
    assert session.state is SessionState.CRASHED
    obs = await session.step(Click(x=10, y=10), SHOT)
    assert obs.last_error is not None and obs.last_error.code == "page_crashed"
    assert obs.last_error.fault == "env" and obs.screenshot is None
    with pytest.raises(PageCrashed):
        await session.observe(SHOT)
    final = await session.final_state("x")
    assert final.answer == "x"
    await session.aclose()
    assert session.state is SessionState.CLOSED
    with pytest.raises(StateError):
        await session.step(Click(x=1, y=1), SHOT)


@pytest.mark.slow
async def test_dead_browser_raises_browser_closed(base_url: str) -> None:
    host = await BrowserHost.launch()
    try:
        session = await host.new_session(SessionOptions().allowing(base_url))
        await session.goto(base_url + "pointer.html")
        cdp = await host.browser.new_browser_cdp_session()
        info = await cdp.send("SystemInfo.getProcessInfo")
        pid = next(p["id"] for p in info["processInfo"] if p["type"] == "browser")
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(BrowserClosed):
            await session.step(Click(x=10, y=10), SHOT)
        assert not host.is_connected() and session.state is SessionState.CRASHED
        with pytest.raises(BrowserClosed):
            await host.new_session()
        await session.aclose()  # never raises for a dead browser
    finally:
        await host.aclose()
    # The driver removes a dead browser's profile only if it sees the exit before it stops.
    assert host.profile is not None and not host.profile.exists()


@pytest.mark.timeout(60)
async def test_a_crash_ends_every_pending_operation_on_the_page_at_once(
    session: BrowserSession, base_url: str
) -> None:
    """A call to a dead renderer may never answer; the crash expires the deadline of every
    guarded operation on the page, which then raises PageCrashed instead of waiting it out
    (here a 600 s deadline: without this, pytest's timeout ends the test)."""
    await session.goto(base_url + "pointer.html")
    tab = session._tabs.current
    never = asyncio.Event()

    async def pending() -> None:
        async with session._guard("waiting on the page", 600):
            await never.wait()

    operation = asyncio.ensure_future(pending())
    await asyncio.sleep(0.1)
    assert not operation.done() and tab.deadlines
    cdp = await tab.cdp()
    crash = asyncio.ensure_future(cdp.send("Page.crash"))  # answered by no one
    with pytest.raises(PageCrashed, match="waiting on the page"):
        await operation
    assert tab.crashed and not tab.deadlines
    crash.cancel()


@pytest.mark.timeout(90)
async def test_a_dead_browser_ends_every_operation_under_way_at_once(base_url: str) -> None:
    """Operations under way when the browser is killed: a page load that never finishes, a
    click on a link to it, and two waits that no page event would ever end (one under a
    guard, one a whole operation), all under 600 s deadlines. All four raise BrowserClosed at
    once. Before the fix the click reported success and the two waits ran until pytest's
    timeout: nothing wakes a wait on a browser that is gone."""
    host = await BrowserHost.launch()
    patient = SessionOptions(action_timeout_s=600, navigation_timeout_s=600).allowing(base_url)
    try:
        loading, clicking = await host.new_session(patient), await host.new_session(patient)
        await clicking.goto(base_url + "nav.html")
        slow_link = (await ids(clicking))["slow"]
        never = asyncio.Event()

        async def guarded_wait() -> None:
            async with clicking._guard("waiting on the page", 600):
                await never.wait()

        operations = [
            asyncio.ensure_future(loading.goto(base_url + "slow")),
            asyncio.ensure_future(clicking.execute(Click(element=slow_link))),
            asyncio.ensure_future(guarded_wait()),
            asyncio.ensure_future(loading._bounded("a whole operation", 600, never.wait())),
        ]
        await asyncio.sleep(0.5)
        assert not any(op.done() for op in operations)  # each waits for the slow page
        os.kill(host.pid or 0, signal.SIGKILL)
        for operation in operations:
            with pytest.raises(BrowserClosed):
                await operation
        for session in (loading, clicking):
            await session.aclose()
    finally:
        await host.aclose()
