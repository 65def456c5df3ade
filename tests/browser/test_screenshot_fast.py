"""The CDP screenshot path (browser/screenshot.py) gives Playwright's bytes: carets hidden,
animations finished (jQuery's too), infinite ones paused for the capture and playing again after it; pages
with child frames or broken scripts fall back to Playwright's screenshot. After an in-page
action, the post-action check readies the page instead of a separate evaluate."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import CDPSession

from webdojo.actions import Click
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions, page_scripts
from webdojo.browser.page_scripts import CHECK_AND_PREPARE, shot_expressions
from webdojo.browser.screenshot import playwright_kwargs, viewport_screenshot
from webdojo.browser.tabs import TabState
from webdojo.errors import MissingDependency, PageCrashed
from webdojo.observation import ImageFormat, ObservationOptions
from webdojo.tasks.miniwob_pages import html_dir

pytestmark = pytest.mark.browser

JPEG = ObservationOptions()
PNG = ObservationOptions(image_format=ImageFormat.PNG)

STYLE = """<style>
  body { margin: 0; font: 16px sans-serif }
  .grow { width: 100px; height: 60px; background: rgb(0, 0, 200); transition: width 5s linear }
  .grow.wide { width: 600px }
  @keyframes spin { from { transform: rotate(0deg) } to { transform: rotate(360deg) } }
  .spin { width: 80px; height: 80px; background: rgb(0, 160, 0); animation: spin 3s linear infinite }
</style>"""
PAGES = {
    "static": "<h1>Plain</h1><p>text</p>",
    "caret": "<input id=field value='hello world' autofocus>",
    # a style flush, then the class: a 5 s transition is running when the page has loaded
    "transition": "<div class=grow id=g></div><script>g.offsetWidth; g.classList.add('wide')"
    "</script>",
    "infinite": "<div class=spin></div>",
    "shadow caret": "<div id=host></div><script>const r = host.attachShadow({mode: 'open'});"
    "r.innerHTML = '<input id=inner value=shadow>'; r.getElementById('inner').focus()</script>",
}


async def _show(session: BrowserSession, body: str) -> None:
    await session._tabs.current.page.set_content(
        f"<html><head>{STYLE}</head><body>{body}</body></html>"
    )


async def _both(session: BrowserSession, options: ObservationOptions) -> tuple[bytes, bytes]:
    tab = session._tabs.current
    ours = await viewport_screenshot(tab, options, 10)
    theirs = await tab.page.screenshot(**playwright_kwargs(options, 10))
    return ours, theirs


@pytest.mark.parametrize("name", list(PAGES))
async def test_the_same_bytes_as_playwright(session: BrowserSession, name: str) -> None:
    await _show(session, PAGES[name])
    for options in (JPEG, PNG):
        ours, theirs = await _both(session, options)
        assert ours == theirs, f"{name} ({options.image_format.value})"


async def test_a_running_transition_is_captured_at_its_end(session: BrowserSession) -> None:
    await _show(session, PAGES["transition"])
    shot = Image.open(io.BytesIO(await viewport_screenshot(session._tabs.current, PNG, 10)))
    assert shot.convert("RGB").getpixel((550, 30)) == (0, 0, 200)  # 600 px wide, not 100


async def test_a_running_jquery_animation_is_captured_at_its_end(session: BrowserSession) -> None:
    """jQuery animates on timers, which getAnimations() does not list (MiniWoB's accordions):
    the capture finishes them too, and their completion callbacks run."""
    try:
        jquery = html_dir() / "core" / "jquery-ui" / "external" / "jquery" / "jquery.js"
    except MissingDependency:
        pytest.skip("MiniWoB++ (which ships jQuery) is not installed")
    grow = (
        "<div id=g style='width: 100px; height: 60px; background: rgb(0, 0, 200)'></div><script>"
        "$('#g').animate({width: 600}, 5000, 'linear', () => { window.done = true })</script>"
    )
    await _show(session, f"<script>{jquery.read_text(encoding='utf-8')}</script>{grow}")
    shot = Image.open(io.BytesIO(await viewport_screenshot(session._tabs.current, PNG, 10)))
    assert shot.convert("RGB").getpixel((550, 30)) == (0, 0, 200)  # 600 px wide, not 100
    assert await session._tabs.current.page.evaluate("window.done === true")


async def test_infinite_animations_play_again_after_the_capture(session: BrowserSession) -> None:
    await _show(session, PAGES["infinite"])
    page = session._tabs.current.page
    await viewport_screenshot(session._tabs.current, JPEG, 10)
    states = await page.evaluate("document.getAnimations().map(a => a.playState)")
    assert states == ["running"]


async def test_the_caret_is_shown_to_the_page_as_hidden_only_by_a_sheet(
    session: BrowserSession,
) -> None:
    """No element is added to the page: the caret sheet is an adopted stylesheet."""
    await _show(session, PAGES["caret"])
    page = session._tabs.current.page
    before = await page.evaluate("document.querySelectorAll('*').length")
    await viewport_screenshot(session._tabs.current, JPEG, 10)
    assert await page.evaluate("document.querySelectorAll('*').length") == before
    assert await page.evaluate("getComputedStyle(field).caretColor") == "rgba(0, 0, 0, 0)"


async def test_a_new_document_hides_its_caret_from_its_start(
    session: BrowserSession, base_url: str
) -> None:
    """The init script adopts the caret sheet before the page's own scripts run, so a capture
    after a navigation restyles nothing; a page that empties the list gets it back then."""
    await session.goto(base_url + "caret.html")
    page = session._tabs.current.page
    caret = "getComputedStyle(field).caretColor"
    assert await page.evaluate("window.sheetsAtStart") == 1
    assert await page.evaluate(caret) == "rgba(0, 0, 0, 0)"  # no capture yet
    await page.evaluate("document.adoptedStyleSheets = []")
    assert await page.evaluate(caret) != "rgba(0, 0, 0, 0)"
    ours, theirs = await _both(session, JPEG)
    assert ours == theirs
    assert await page.evaluate(caret) == "rgba(0, 0, 0, 0)"


async def test_a_page_with_a_frame_or_broken_scripts_gets_playwrights_screenshot(
    session: BrowserSession,
) -> None:
    await _show(session, "<h1>framed</h1><iframe srcdoc='<input autofocus value=inside>'></iframe>")
    ours, theirs = await _both(session, JPEG)
    assert ours == theirs
    # a page that breaks the evaluate (its own getAnimations throws)
    await _show(
        session,
        "<input autofocus value=x><script>document.getAnimations = () => { throw 1 }</script>",
    )
    ours, theirs = await _both(session, JPEG)
    assert ours == theirs


@pytest.mark.timeout(60)
async def test_a_renderer_that_dies_during_the_capture_fails_it_at_once(
    host: BrowserHost,
) -> None:
    """A CDP session's call to a crashed renderer never answers: the observation's guard,
    which the crash expires, ends the capture with page_crashed, not at its deadline (here
    over 60 s: without this, pytest's timeout ends the test)."""
    async with await host.new_session(SessionOptions(action_timeout_s=60)) as session:
        await _show(session, PAGES["static"])
        tab = session._tabs.current
        cdp = await tab.cdp()
        spin = {"expression": "setTimeout(() => { while (true) {} })"}
        await cdp.send("Runtime.evaluate", spin)
        observing = asyncio.ensure_future(session.observe(JPEG))
        await asyncio.sleep(0.2)  # the capture's evaluate now waits on the spinning page
        assert not observing.done()
        crash = asyncio.ensure_future(cdp.send("Page.crash"))  # on the IO thread: no answer
        with pytest.raises(PageCrashed):
            await observing
        assert tab.crashed
        crash.cancel()


# --- the check that readies the page (settle.py, page_scripts.CHECK_AND_PREPARE) --------


def _spy_prepares(tab: TabState, cdp: CDPSession) -> list[str]:
    """Record each evaluate the screenshot path sends to ready the page itself."""
    sent: list[str] = []
    send = cdp.send
    prepare = shot_expressions("prepare")

    async def spy(method: str, params: dict[str, Any] | None = None) -> Any:
        if method == "Runtime.evaluate" and params and params["expression"] in prepare:
            sent.append(tab.page.url)
        return await send(method, params)

    cdp.send = spy  # type: ignore[method-assign]
    return sent


async def test_a_step_readies_the_page_in_its_post_action_check(
    session: BrowserSession, base_url: str
) -> None:
    """An in-page click: the check that follows it also finishes the transition the click
    started and pauses the infinite animation, so the capture sends no evaluate of its own;
    the bytes are still Playwright's, and the animation plays again after the capture."""
    await session.goto(base_url + "animate.html")
    await session.observe(PNG)  # as a reset does: the hooks' record of the document, read
    tab = session._tabs.current
    prepares = _spy_prepares(tab, await tab.cdp())
    obs = await session.step(Click(x=70, y=30), PNG)
    assert obs.last_error is None and obs.screenshot is not None
    assert prepares == []
    assert Image.open(io.BytesIO(obs.screenshot)).convert("RGB").getpixel((550, 130)) == (0, 0, 200)
    assert (
        await tab.page.evaluate("document.querySelector('.spin').getAnimations()[0].playState")
        == "running"
    )
    theirs = await tab.page.screenshot(**playwright_kwargs(PNG, 10))
    assert obs.screenshot == theirs
    assert tab.prepared is None  # readied for that capture only


async def test_a_step_that_loads_a_page_readies_the_new_one_as_it_reads_the_title(
    session: BrowserSession, base_url: str
) -> None:
    """The check saw a navigation start, so it readied nothing; the observation's read of
    the new page's title readies it (one evaluate), and the capture sends none of its own.
    (On a busy machine the check can run in the new page once it has loaded: then the check
    readies it, see the next-document test below; the capture sends none either way.)"""
    await session.goto(base_url + "animate.html")
    await session.observe(PNG)
    tab = session._tabs.current
    prepares = _spy_prepares(tab, await tab.cdp())
    obs = await session.step(Click(x=215, y=28), PNG)  # the link: the page opens again, grown
    assert obs.last_error is None and obs.screenshot is not None
    assert obs.url.endswith("?grown")
    assert prepares == []
    assert obs.title == "Animate"
    assert Image.open(io.BytesIO(obs.screenshot)).convert("RGB").getpixel((550, 130)) == (0, 0, 200)


async def test_a_snapshot_readies_the_page_for_the_capture(
    session: BrowserSession, base_url: str
) -> None:
    """With the element list or the tree, dom.js's evaluate readies a page just loaded for
    the capture that follows, set-of-marks included; the bytes are still Playwright's."""
    await session.goto(base_url + "animate.html")
    await session.observe(PNG)
    tab = session._tabs.current
    prepares = _spy_prepares(tab, await tab.cdp())
    rich = PNG.model_copy(update={"axtree": "viewport", "elements": True})
    obs = await session.step(Click(x=215, y=28), rich)  # the link: the page loads again
    assert obs.last_error is None and obs.screenshot is not None and obs.axtree
    assert prepares == []
    assert Image.open(io.BytesIO(obs.screenshot)).convert("RGB").getpixel((550, 130)) == (0, 0, 200)
    assert obs.screenshot == await tab.page.screenshot(**playwright_kwargs(PNG, 10))
    await session.goto(base_url + "animate.html")
    marks = await session.observe(PNG.model_copy(update={"marks": True}))
    assert prepares == [] and marks.screenshot is not None and marks.elements


async def test_the_check_leaves_a_page_whose_fonts_load_as_it_is(
    session: BrowserSession, base_url: str
) -> None:
    """A font still loading: the check readies nothing (the capture waits for the fonts, as
    Playwright's screenshot does), and a running transition keeps running."""
    await session.goto(base_url + "animate.html")
    tab = session._tabs.current
    await session.observe(ObservationOptions(screenshot=False))  # the hooks' record, read
    await tab.page.evaluate(
        "grow(); const f = new FontFace('late', 'url(/slow)'); document.fonts.add(f); f.load(); 0"
    )
    found = await tab.page.evaluate(CHECK_AND_PREPARE, {"op": "check", "seen": tab.seen()})
    assert found["shot"] is None
    assert await tab.page.evaluate("g.getAnimations()[0].playState") == "running"
    # the same check with the fonts loaded readies the page: the transition is at its end
    await tab.page.evaluate("document.fonts.clear()")
    found = await tab.page.evaluate(CHECK_AND_PREPARE, {"op": "check", "seen": tab.seen()})
    assert found["shot"] == 1  # the infinite animation, paused for a capture
    assert await tab.page.evaluate("g.getAnimations().length") == 0


async def test_a_check_that_meets_the_next_document_loaded_readies_it(
    session: BrowserSession, base_url: str
) -> None:
    """On a busy machine the check sent after a navigating click can run in the new document
    once it has loaded (CI saw it). Loaded with nothing started, that document is readied by
    the check, as the same document would be; one that has started something is not."""
    await session.goto(base_url + "animate.html")
    tab = session._tabs.current
    gone = {"doc": "the-document-before", "navs": 1, "popups": 0, "submits": 0}
    tab.doc, tab.navs = gone["doc"], 1  # the session last read the document before
    found = await tab.page.evaluate(CHECK_AND_PREPARE, {"op": "check", "seen": gone})
    assert found["ready"] == "complete" and found["shot"] == 1
    assert tab.note(found) == (False, False, False)  # settle.py keeps the readying
    await page_scripts.shot(await tab.cdp(), "resume")
    await tab.page.evaluate("window[Symbol.for('webdojo')].popups = 1")  # it opened a window
    found = await tab.page.evaluate(CHECK_AND_PREPARE, {"op": "check", "seen": gone})
    assert "shot" not in found
    assert tab.note(found)[1]  # settle.py waits for the popup instead


async def test_a_page_that_breaks_the_readying_still_steps(
    session: BrowserSession, base_url: str
) -> None:
    """Its own getAnimations throws: the check still answers (the action is not failed for
    it) and the capture falls back to Playwright's screenshot."""
    await session.goto(base_url + "animate.html")
    await session.observe(PNG)
    tab = session._tabs.current
    await tab.page.evaluate("document.getAnimations = () => { throw 1 }; 0")
    obs = await session.step(Click(x=70, y=30), PNG)
    assert obs.last_error is None and obs.screenshot is not None
    assert obs.screenshot == await tab.page.screenshot(**playwright_kwargs(PNG, 10))
