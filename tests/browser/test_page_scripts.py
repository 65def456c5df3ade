"""webdojo's page-side scripts are installed once per document and called by name
(browser/page_scripts.py): a step sends no script source, a document without them gets the
whole source and the same answer, the reads through CDP answer as Playwright's evaluate does,
and the page cannot replace them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from webdojo.actions import Click
from webdojo.browser import BrowserHost, BrowserSession
from webdojo.browser import page_scripts as ps
from webdojo.browser.guard import is_navigation_race
from webdojo.observation import ObservationOptions

pytestmark = pytest.mark.browser

TEXT = ObservationOptions(screenshot=False)
SHOT = ObservationOptions()


def _spy_sources(page: Any, cdp: Any = None) -> list[int]:
    """The length of the script each ``page.evaluate`` sends, and each ``Runtime.evaluate``
    through ``cdp`` (a tab's own CDP session, which page_scripts.read uses)."""
    sent: list[int] = []
    evaluate = page.evaluate

    async def spy(expression: str, arg: Any = None) -> Any:
        sent.append(len(expression))
        return await evaluate(expression, arg)

    page.evaluate = spy
    if cdp is not None:
        send = cdp.send

        async def spy_cdp(method: str, params: Any = None) -> Any:
            if method == "Runtime.evaluate":
                sent.append(len(params["expression"]))
            return await send(method, params)

        cdp.send = spy_cdp
    return sent


async def test_a_step_sends_calls_not_sources(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    await session.observe(TEXT)
    page = session._tabs.current.page
    assert await page.evaluate("Object.keys(window[Symbol.for('webdojo')].fns).sort()") == [
        "act",
        "check",
        "dom",
        "shot",
        "snap",
    ]
    sent = _spy_sources(page, await session._tabs.current.cdp())
    obs = await session.step(Click(x=5, y=5), SHOT)  # the check readies the capture
    obs = await session.step(Click(x=5, y=5), ObservationOptions(axtree="full"))  # + dom.js
    assert obs.last_error is None and obs.axtree
    assert len(sent) >= 3 and max(sent) < 600, sent  # act.js alone is 9 KB


async def test_reads_through_cdp_answer_as_playwright_does(
    host: BrowserHost, base_url: str
) -> None:
    """page_scripts.read (a bare Runtime.evaluate) gives what call (page.evaluate) gives,
    where the scripts are installed and where they are missing, and raises what the script
    threw."""
    context = await host.browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(base_url + "form.html")
        cdp = await context.new_cdp_session(page)
        args = {"lines": True, "marks": False, "ready": False}
        check = {"op": "check"}
        missing = [await ps.read(cdp, "snap", args), await ps.read(cdp, "act", check)]
        assert missing == [await ps.call(page, "snap", args), await ps.call(page, "act", check)]
        assert missing[1]["title"] == await page.title() and not missing[1]["doc"]
        await page.evaluate(ps.INIT_JS)
        sent = _spy_sources(page, cdp)
        installed = await ps.read(cdp, "act", check)
        assert installed == await ps.call(page, "act", check) and installed["doc"]
        assert max(sent) < 300
        with pytest.raises(PlaywrightError, match="unknown op") as raised:
            await ps.read(cdp, "act", {"op": "no-such-op"})
        assert not is_navigation_race(raised.value)
    finally:
        await context.close()


async def test_a_document_without_them_gets_the_whole_source(
    host: BrowserHost, base_url: str
) -> None:
    """A plain Playwright context has no webdojo init script: each call falls back to the
    whole source, with the answer the installed function gives."""
    context = await host.browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(base_url + "form.html")
        args = {"lines": True, "marks": False, "ready": True}
        whole = await ps.call(page, "snap", args)
        assert '"elements"' in whole["text"] and whole["shot"] == 0  # readied, nothing paused
        check = await ps.call(page, "act", {"op": "check"})
        assert check["title"] == await page.title()
        await page.evaluate(ps.INIT_JS)  # as TabState.ensure_hooks does
        installed = json.loads((await ps.call(page, "snap", args))["text"])
        before = json.loads(whole["text"])
        assert before.pop("doc") == "" and installed.pop("doc")  # the hooks' token, now set
        assert installed == before
        sent = _spy_sources(page)
        assert (await ps.call(page, "act", {"op": "check"}))["title"] == check["title"]
        assert max(sent) < 300
    finally:
        await context.close()


async def test_the_page_cannot_replace_them(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    page = session._tabs.current.page
    await page.evaluate(
        """() => {
      const st = window[Symbol.for('webdojo')];
      try { st.fns = { act: () => ({ forged: true }) }; } catch (e) {}
      try { st.fns.act = () => ({ forged: true }); } catch (e) {}
      try { delete st.fns; } catch (e) {}
    }"""
    )
    found = await ps.call(page, "act", {"op": "check"})
    assert "forged" not in found and found["doc"]


async def test_shot_falls_back_where_missing(host: BrowserHost, base_url: str) -> None:
    context = await host.browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(base_url + "animate.html")
        cdp = await context.new_cdp_session(page)
        answer = await ps.shot(cdp, "prepare")
        assert "exceptionDetails" not in answer and answer["result"]["value"] is not None
        assert (await ps.shot(cdp, "resume"))["result"]["value"] == 0
    finally:
        await context.close()
