"""Actions by element id act on that element, found again at action time, or fail with
``StaleElement``; never on whatever now stands at the element's old position."""

from __future__ import annotations

import pytest
from browser_helpers import ids

from webdojo.actions import Click, Hover, Type
from webdojo.browser import BrowserSession
from webdojo.errors import ActionFailed, StaleElement

pytestmark = pytest.mark.browser


async def values(session: BrowserSession) -> dict[str, str]:
    return await session.page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('input')].map(i => [i.id, i.value]))"
    )


async def test_type_lands_in_its_field_after_a_hover_menu_closes(
    session: BrowserSession, base_url: str
) -> None:
    """The pointer leaving the menu closes it and the form moves up 200 px: at the field's
    old position now stands another field."""
    await session.goto(base_url + "shift.html")
    await session.execute(Hover(x=100, y=20))  # opens the menu
    found = await ids(session)  # observed with the menu open
    await session.execute(Type(element=found["f2"], text="hello"))
    assert await values(session) == {"f1": "", "f2": "hello", "f3": "", "f4": "", "f5": ""}


async def test_moved_element_is_clicked_where_it_is_now(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "shift.html")
    target = (await ids(session))["target"]
    await session.page.evaluate(
        "() => document.body.prepend(Object.assign(document.createElement('div'),"
        " {style: 'height: 300px'}))"
    )
    await session.execute(Click(element=target))
    assert await session.page.evaluate("window.targetClicks") == 1


async def test_removed_element_is_stale(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "shift.html")
    found = await ids(session)
    await session.page.evaluate("() => document.getElementById('target').remove()")
    with pytest.raises(StaleElement) as info:
        await session.execute(Click(element=found["target"]))
    assert info.value.code == "stale_element" and info.value.fault == "agent"
    await session.page.evaluate("() => document.getElementById('f3').remove()")
    with pytest.raises(StaleElement):
        await session.execute(Type(element=found["f3"], text="x"))
    assert await session.page.evaluate("window.pageClicks") == 0


async def test_element_moving_under_the_press_is_not_clicked(
    session: BrowserSession, base_url: str
) -> None:
    """The button jumps away as it is pressed: the release and the click would reach the
    page behind it, so they are held back and the action raises."""
    await session.goto(base_url + "shift.html")
    with pytest.raises(StaleElement, match="would have reached"):
        await session.execute(Click(element=(await ids(session))["jumpy"]))
    clicks = await session.page.evaluate("[window.jumpyClicks || 0, window.pageClicks]")
    assert clicks == [0, 0]
    # The guard is lifted: a click by coordinates right after reaches the page.
    await session.execute(Click(x=5, y=700))
    assert await session.page.evaluate("window.pageClicks") == 1


async def test_covered_element_is_refused_not_the_cover_clicked(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "shift.html")
    target = (await ids(session))["target"]
    await session.page.evaluate(
        "() => document.body.append(Object.assign(document.createElement('div'), {id: 'cover',"
        " style: 'position: fixed; inset: 0; background: white'}))"
    )
    with pytest.raises(ActionFailed, match="covered by"):
        await session.execute(Click(element=target))
    assert await session.page.evaluate("[window.targetClicks || 0, window.pageClicks]") == [0, 0]
