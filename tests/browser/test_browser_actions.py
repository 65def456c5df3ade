"""Every action type against real headless Chromium on local pages."""

from __future__ import annotations

import asyncio

import pytest
from browser_helpers import ids, text

from webdojo.actions import (
    Click,
    CloseTab,
    CoordSpace,
    DoubleClick,
    GoBack,
    GoForward,
    Goto,
    Hover,
    NewTab,
    Press,
    Scroll,
    Select,
    Stop,
    TabFocus,
    Type,
    Wait,
)
from webdojo.browser import BrowserSession
from webdojo.observation import ObservationOptions

pytestmark = pytest.mark.browser

SHOT = ObservationOptions()
ELEMENTS = ObservationOptions(elements=True)


async def test_click_by_element(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "pointer.html")
    button = (await ids(session))["count-btn"]
    for _ in range(2):
        obs = await session.step(Click(element=button), SHOT)
        assert obs.last_error is None
    assert await text(session, "#count") == "2"


async def test_click_by_pixel_and_norm1000_point(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "pointer.html")
    await session.step(Click(x=600, y=350), SHOT)
    assert await text(session, "#pt") == "600,350"
    # 0-1000 coordinates scale to the 1280x720 viewport: (500, 500) -> (640, 360)
    await session.step(Click(x=500, y=500, space=CoordSpace.NORM1000), SHOT)
    assert await text(session, "#pt") == "640,360"


async def test_double_click_and_hover(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "pointer.html")
    found = await ids(session)
    await session.step(Hover(element=found["hover-box"]), SHOT)
    assert await text(session, "#hover-box") == "hovered"
    await session.step(DoubleClick(element=found["dbl-box"]), SHOT)
    assert await text(session, "#dbl-box") == "double"
    await session.step(DoubleClick(x=420, y=40), SHOT)  # by point as well
    assert await text(session, "#dbl-box") == "double"


async def test_type_clears_target_and_enter_submits(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    found = await ids(session)
    await session.step(Type(element=found["name"], text="Ada"), SHOT)
    assert await session.page.input_value("#name") == "Ada"  # "old" was cleared
    await session.step(Type(element=found["bio"], text="ab"), SHOT)
    await session.step(Type(text="cd"), SHOT)  # no target: types into the focused field
    await session.step(Press(keys="Backspace"), SHOT)
    assert await session.page.input_value("#bio") == "abc"
    obs = await session.step(Type(element=found["email"], text="a@b.c", enter=True), SHOT)
    assert obs.last_error is None
    assert obs.title == "Done" and "done.html?name=Ada" in obs.url


async def test_type_into_a_button_is_refused(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    obs = await session.step(Type(element=(await ids(session))["save"], text="x"), SHOT)
    assert obs.last_error is not None and obs.last_error.code == "action_failed"


async def test_select_by_label_and_value(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    color = (await ids(session))["color"]
    await session.step(Select(element=color, option="Blue"), SHOT)
    assert await text(session, "#changed") == "colour=b"
    obs = await session.step(Select(element=color, option="g"), ELEMENTS)
    assert obs.find_element(color).value == "Green"  # type: ignore[union-attr]
    obs = await session.step(Select(element=color, option="Purple"), SHOT)
    assert obs.last_error is not None and obs.last_error.code == "action_failed"
    assert "'Red', 'Green', 'Blue'" in obs.last_error.message


async def test_checkbox_via_label(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    agree = (await ids(session))["agree"]
    obs = await session.step(Click(element=agree), ELEMENTS)
    element = obs.find_element(agree)
    assert element is not None and element.checked is True and element.name == "I agree"


async def test_scroll_page_point_and_element(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "scroll.html")
    scroll_y = "() => [scrollX, scrollY, document.getElementById('inner').scrollTop]"
    await session.step(Scroll(direction="down"), SHOT)
    assert await session.page.evaluate(scroll_y) == [0, 600, 0]  # 5/6 of 720
    await session.step(Scroll(direction="up", amount=100), SHOT)
    await session.step(Scroll(direction="right", amount=50), SHOT)
    assert await session.page.evaluate(scroll_y) == [50, 500, 0]
    await session.page.evaluate("() => scrollTo(0, 0)")
    await session.step(Scroll(direction="down", amount=400, x=150, y=150), SHOT)
    assert await session.page.evaluate(scroll_y) == [0, 0, 400]
    inner = (await ids(session))["inner"]  # scrollable containers are listed as elements
    obs = await session.step(Scroll(direction="down", amount=100, element=inner), ELEMENTS)
    assert await session.page.evaluate(scroll_y) == [0, 0, 500]
    assert obs.find_element(inner).role == "scrollable"  # type: ignore[union-attr]


async def test_click_scrolls_an_offscreen_element_into_view(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "scroll.html")
    far = (await ids(session))["far"]
    obs = await session.step(Click(element=far), SHOT)
    assert obs.last_error is None
    assert await text(session, "#far") == "far clicked"


async def test_click_inside_same_origin_iframe(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "axtree.html")
    button = (await ids(session))["inframe"]
    obs = await session.step(Click(element=button), ObservationOptions(elements=True))
    assert obs.last_error is None
    assert obs.find_element(button).name == "frame clicked"  # type: ignore[union-attr]


async def test_navigation_click_waits_for_load(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(Click(element=(await ids(session))["next"]), SHOT)
    assert obs.last_error is None
    assert obs.url == base_url + "two.html" and obs.title == "Page two"
    assert obs.screenshot is not None


async def test_navigation_started_by_a_timer(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    for _ in range(3):  # the step may see either page, but never fails
        obs = await session.step(Click(element=(await ids(session))["later"]), SHOT)
        assert obs.last_error is None and obs.screenshot is not None
        obs = await session.step(Wait(seconds=0.3), SHOT)
        assert obs.title == "Page two" and obs.last_error is None
        await session.step(GoBack(), SHOT)


async def test_same_document_navigation(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(Click(element=(await ids(session))["hash"]), SHOT)
    assert obs.last_error is None and obs.url.endswith("nav.html#section")


async def test_downloads_keep_the_page_and_are_reported(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "nav.html")
    reported = []
    for link in ("dl", "att"):  # a download attribute; a Content-Disposition: attachment
        obs = await session.step(Click(element=(await ids(session))[link]), SHOT)
        assert obs.last_error is None and obs.url == base_url + "nav.html", link
        assert len(obs.tabs) == 1
        reported += obs.downloads
    async with asyncio.timeout(10):  # they finish on their own time (test_isolation: more)
        while len(reported) < 2:
            reported += (await session.observe(SHOT)).downloads
    assert all(d.error is None for d in reported) and "a.bin" in {d.name for d in reported}


async def test_goto_back_forward(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(GoBack(), SHOT)  # nothing before the first page
    assert obs.last_error is not None and obs.last_error.code == "action_failed"
    assert "previous page" in obs.last_error.message
    obs = await session.step(Goto(url=base_url + "two.html"), SHOT)
    assert obs.title == "Page two"
    obs = await session.step(GoBack(), SHOT)
    assert obs.title == "Nav one" and obs.last_error is None
    obs = await session.step(GoForward(), SHOT)
    assert obs.title == "Page two" and obs.last_error is None
    obs = await session.step(GoForward(), SHOT)
    assert obs.last_error is not None and "next page" in obs.last_error.message


async def test_tabs_new_focus_close(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(NewTab(url=base_url + "two.html"), SHOT)
    assert [(t.index, t.title, t.active) for t in obs.tabs] == [
        (0, "Nav one", False),
        (1, "Page two", True),
    ]
    obs = await session.step(TabFocus(index=0), SHOT)
    assert obs.title == "Nav one" and obs.tabs[0].active
    obs = await session.step(CloseTab(), SHOT)
    assert len(obs.tabs) == 1 and obs.title == "Page two"
    # Closing the last tab leaves a blank one: a session always has a tab.
    obs = await session.step(CloseTab(), SHOT)
    assert len(obs.tabs) == 1 and obs.url == "about:blank" and obs.last_error is None
    obs = await session.step(NewTab(), SHOT)
    assert len(obs.tabs) == 2 and obs.tabs[1].active


async def test_wait_and_stop(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.step(Wait(seconds=0.05), SHOT)
    assert obs.last_error is None
    obs = await session.step(Stop(answer="42"), SHOT)
    assert obs.last_error is None and obs.url == base_url + "nav.html"


async def test_final_state(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    await session.step(Click(element=(await ids(session))["save"]), SHOT)
    final = await session.final_state("my answer")
    assert final.url == base_url + "form.html" and final.title == "Form"
    assert final.storage == {"profile": {"name": "old", "color": "r"}, "plain": "not json {"}
    assert "Sign up" in final.text and final.answer == "my answer"
